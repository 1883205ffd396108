/* The commands of bin/explorer-tool that read recorded data (explorer_report.c), and
 * what they share with the others (explorer.c). */
#ifndef LAB_EXPLORER_COMMANDS_H
#define LAB_EXPLORER_COMMANDS_H

/* The tool's name in its messages. */
extern const char *const explorer_program;

/* Says why in one line, pointing at the usage in explorer.c, and exits 2. */
void explorer_usage_exit(const char *why);

/* explorer-tool report --metrics F --results F [--wall F] [--csv F] */
int explorer_cmd_report(int argc, char **argv);

/* explorer-tool compare --metrics F --ncu F */
int explorer_cmd_compare(int argc, char **argv);

#endif
