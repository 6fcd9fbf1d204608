#!/bin/sh
# checkpatch.pl --strict over module/ and the test module.  checkpatch is
# not in the headers packages: it is taken from Debian's linux-source
# tarball (installed on demand) into build/checkpatch/.
#
# Ignored on purpose: LINUX_VERSION_CODE and CONSTANT_COMPARISON (version
# checks are what compat.h is for, written as the kernel writes them) and
# CAMELCASE (it flags the C11 keyword _Static_assert in the uapi header).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/build/checkpatch
if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | tail -n 1)
	if [ -z "$tarball" ]; then
		[ "$(id -u)" -eq 0 ] || { echo "lint: apt-get install linux-source-6.1 first" >&2; exit 1; }
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q linux-source-6.1 >/dev/null
		tarball=$(ls /usr/src/linux-source-*.tar.xz | tail -n 1)
	fi
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
fi
# In a git tree checkpatch caches camel-case names in the working
# directory (.checkpatch-camelcase.git.*, ignored): drop the cache after.
trap 'rm -f "$top"/.checkpatch-camelcase.git.*' EXIT
cd "$top"
# The trace events' header is laid out as the kernel's own
# include/trace/events/*.h are (TP_STRUCT__entry( on a line of its own,
# continuation lines under the macro): checkpatch --strict flags that
# layout there too (kmem.h: 22 OPEN_ENDED_LINE, 24 PARENTHESIS_ALIGNMENT).
ignore=SPDX_LICENSE_TAG,FILE_PATH_CHANGES,LINUX_VERSION_CODE,CONSTANT_COMPARISON,CAMELCASE
rc=0
"$dir/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore "$ignore" \
	-f $(ls "$top"/module/*.c "$top"/module/*.h | grep -v '/dprof_trace\.h$') \
	"$top"/module/uapi/*.h "$top"/selftests/modules/*.c || rc=1
"$dir/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore "$ignore,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT" \
	-f "$top"/module/dprof_trace.h || rc=1
exit "$rc"
