/*
 * exec_branch_merge.c - MERGE BRANCH b [INTO main] [DRY RUN] (docs/branches.md).
 */
#include "sql/exec.h"

silt_status sql_exec_merge_branch(binder *b, const sql_stmt *stmt, exec_out *out,
                                  silt_error *err)
{
    (void)b;
    (void)stmt;
    (void)out;
    return err_set(err, SILT_UNSUPPORTED, "MERGE BRANCH is not supported yet");
}
