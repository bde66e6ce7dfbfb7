/* kj_version (include/kjudge/version.h): the string the build generated
 * (build/gen/kj_version.h, from the Makefile). */
#include "kjudge/version.h"

#include "kj_version.h"

const char *kj_version(void)
{
	return KJ_VERSION_STRING;
}
