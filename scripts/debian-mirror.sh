#!/bin/sh
# Print the URI of the Debian archive this machine's apt sources use for
# bookworm (deb822 .sources files first, then one-line .list files), so
# that install-deps.sh and debian-rootfs.sh reach the mirror the machine
# is set up for and name no host themselves.  Prints nothing if none.
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	awk 'BEGIN { RS = ""; FS = "\n" }
	{
		uri = ""; ok = 0
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^URIs:/) { sub(/^URIs:[ \t]*/, "", $i); split($i, u, " "); uri = u[1] }
			if ($i ~ /^Suites:/ && $i ~ /(^|[ \t])bookworm([ \t]|$)/) ok = 1
		}
		if (ok && uri != "") { print uri; exit }
	}' "$f"
done
cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
	awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/) break;
		if ($(i + 1) == "bookworm") print $i }'
