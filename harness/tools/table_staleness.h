/* Whether a generated table's run is older than the code it shows (bin/guide-tables). */
#ifndef TABLE_STALENESS_H
#define TABLE_STALENESS_H

/* table is one generated results table of lab (its caption names the run and its
 * commit; its rows' first cells the steps, "NN-name"). For each step, the last commit
 * that changed solutions/<lab>/<step>.cu (git log, run in the current folder) must be
 * in the run's history (git merge-base --is-ancestor; a "-dirty" commit counts as its
 * base), or the change since the run must be to comments alone (git diff -I: a
 * header's text does not change what the table measured). Where one is not, one line on stderr flags the table, at where (file:line),
 * naming the step files changed since. Nothing is flagged where git cannot tell (no
 * git, no repository, a commit it does not know, a file the commit does not hold). Returns the number of step files
 * changed since the run. */
int table_staleness_flag(const char *where, const char *lab, const char *table);

#endif
