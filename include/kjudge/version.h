/*
 * kjudge's version: the release and, for a build from a git checkout, the
 * commit ("0.1+g0123456789ab", "-dirty" when the tree had changes).  Runs
 * and verdicts record it.  Uses nothing.
 */
#ifndef KJUDGE_VERSION_H
#define KJUDGE_VERSION_H

const char *kj_version(void);

#endif
