#!/bin/sh
# Debian's busybox-static is built without wget's network timeout, and its `wget -T N`
# crashes (exit 139) while `--timeout=N` is refused: both appear in Kubernetes'
# tutorials (`wget --spider --timeout=1 nginx`). Enforce the timeout around the applet.
t=''
n=$#
i=0
while [ "$i" -lt "$n" ]; do
  a=$1; shift; i=$((i + 1))
  case $a in
    -T|--timeout) t=$1; shift; i=$((i + 1)) ;;
    -T*) t=${a#-T} ;;
    --timeout=*) t=${a#--timeout=} ;;
    *) set -- "$@" "$a" ;;
  esac
done
[ -z "$t" ] && exec /bin/busybox wget "$@"
/bin/busybox timeout "$t" /bin/busybox wget "$@"
rc=$?
[ "$rc" -eq 143 ] || exit "$rc"
echo 'wget: download timed out' >&2
exit 1
