#error "a submission's harness is never used"
