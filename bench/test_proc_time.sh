#!/bin/sh
# bench/test_proc_time.sh: the `cli` test proc_time (bench/proc_time.c, bench/run's timer).
#
#   sh bench/test_proc_time.sh PROC_TIME
#
# 1. A command's exit status passes through (0 and 3), its standard output too, and the
#    file holds the four figures as whole numbers.
# 2. The wall time holds the process: `sleep 0.2` reads 0.2 to 5 s.
# 3. The peak RSS is the process's: awk building a 64 MB string reads 60 MiB or more, `true`
#    less than 60 MiB; the CPU time counts its work (user + sys of a busy awk loop >= 50 ms).
# 4. A process ended by a signal gives 128 + the signal (SIGKILL: 137); a command that does
#    not exist gives 127 and a message naming it; no command is a usage error (1).
# 5. --fifo 10 runs the command under SCHED_FIFO priority 10 (where this test may: root, or
#    `chrt -f 10 true` works), without it under SCHED_OTHER; a user without the privilege
#    gets 127 and a message (checked as root with setpriv); --fifo 0 and --fifo x are usage
#    errors.
set -eu
pt=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/proc_time.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
bad() {
    echo "FAIL: $*"
    exit 1
}
field() { sed -n "s/^$1 //p" "$2"; }

# 1.
rc=0
out=$("$pt" -o "$tmp/a" sh -c 'echo hello') || rc=$?
[ "$rc" -eq 0 ] && [ "$out" = hello ] || bad "echo: exit $rc, output '$out'"
for k in wall_ns max_rss_kib user_us sys_us; do
    v=$(field "$k" "$tmp/a")
    case $v in '' | *[!0-9]*) bad "$k is '$v'" ;; esac
done
rc=0
"$pt" -o "$tmp/b" sh -c 'exit 3' || rc=$?
[ "$rc" -eq 3 ] || bad "exit 3 came back as $rc"

# 2.
"$pt" -o "$tmp/c" sleep 0.2
w=$(field wall_ns "$tmp/c")
[ "$w" -ge 200000000 ] && [ "$w" -le 5000000000 ] || bad "sleep 0.2 took $w ns"

# 3.
"$pt" -o "$tmp/d" awk 'BEGIN { s = "x"; while (length(s) < 64000000) s = s s; print length(s) > "/dev/null" }'
r=$(field max_rss_kib "$tmp/d")
[ "$r" -ge 61440 ] || bad "a 64 MB string: peak RSS $r KiB"
"$pt" -o "$tmp/e" true
r=$(field max_rss_kib "$tmp/e")
[ "$r" -gt 0 ] && [ "$r" -lt 61440 ] || bad "true: peak RSS $r KiB"
"$pt" -o "$tmp/f" awk 'BEGIN { for (i = 0; i < 10000000; i++) s += i * i }'
c=$(($(field user_us "$tmp/f") + $(field sys_us "$tmp/f")))
[ "$c" -ge 50000 ] || bad "a busy loop: CPU $c us"

# 4.
rc=0
"$pt" -o "$tmp/g" sh -c 'kill -9 $$' || rc=$?
[ "$rc" -eq 137 ] || bad "SIGKILL came back as $rc"
rc=0
"$pt" -o "$tmp/h" "$tmp/no-such-command" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 127 ] && grep -q "no-such-command" "$tmp/err" || bad "a missing command: exit $rc"
rc=0
"$pt" 2>/dev/null || rc=$?
[ "$rc" -eq 1 ] || bad "no arguments: exit $rc"
# 5.
if chrt -f 10 true 2>/dev/null; then
    out=$("$pt" --fifo 10 -o "$tmp/i" sh -c 'chrt -p $$')
    echo "$out" | grep -q 'policy: SCHED_FIFO' && echo "$out" | grep -q 'priority: 10' ||
        bad "--fifo 10: $out"
    [ -n "$(field wall_ns "$tmp/i")" ] || bad "--fifo 10 wrote no wall time"
    if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
        cp "$pt" "$tmp/pt" && chmod 755 "$tmp" "$tmp/pt"
        rc=0
        setpriv --reuid 65534 --regid 65534 --clear-groups "$tmp/pt" --fifo 10 -o /dev/null true \
            2>"$tmp/err" || rc=$?
        [ "$rc" -eq 127 ] && grep -q "SCHED_FIFO" "$tmp/err" || bad "--fifo unprivileged: exit $rc"
    fi
else
    echo "chrt -f 10 not permitted here: --fifo not run"
fi
out=$("$pt" -o "$tmp/j" sh -c 'chrt -p $$')
echo "$out" | grep -q 'policy: SCHED_OTHER' || bad "without --fifo: $out"
for v in 0 100 x ''; do
    rc=0
    "$pt" --fifo "$v" -o "$tmp/k" true 2>/dev/null || rc=$?
    [ "$rc" -eq 1 ] || bad "--fifo '$v': exit $rc"
done
echo "ok"
