#!/bin/sh
# The guest's serial console as a person reads it: stdin to stdout.
#
# The firmware (SeaBIOS, iPXE) writes to the same console before the
# kernel, ends its last line without a newline or with terminal escapes
# that a later line inherits, and the kernel boots quiet: the first line
# the guest's script prints can share a line with "Booting from ROM..".
# So a pattern for firmware chatter must never see the script's text.
# The guest's /init prints DPROF-CONSOLE-BEGIN on a line of its own
# right before it runs the script: before that marker, lines of firmware
# chatter and empty lines are dropped; from the line after it on, every
# line passes except the init's own "DPROF-EXIT: n" (vm.sh reads the
# status from the share).  Terminal escapes are removed everywhere.
set -eu
sed -u -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/\x1bc//g' -e 's/\r$//' |
	awk '
	started {
		if ($0 !~ /^DPROF-EXIT: [0-9]+$/)
			print
		fflush()
		next
	}
	/DPROF-CONSOLE-BEGIN$/ { started = 1; next }
	/SeaBIOS|iPXE|Press Ctrl-B|Booting from ROM|^DPROF-EXIT: |^$/ { next }
	{ print; fflush() }
	'
