#!/usr/bin/env bash
# Runs a command inside a throw-away QEMU VM with a real soft-RoCE (rdma_rxe) device, so that Shoal's RDMA
# path runs for real on a host whose own kernel has no RDMA.
#
#   deploy/rxe-vm/run-in-vm.sh [-t SECONDS] [-m MiB] -- COMMAND [ARG...]
#
# The guest:
#   * boots Debian 12's own kernel (linux-image-amd64, fetched with `apt-get download` and unpacked once),
#     under software emulation (TCG; the /dev/kvm of these hosts cannot boot a stock kernel), from a small
#     initramfs: busybox-static, the virtio, 9p and rdma_rxe modules, and this script's init;
#   * sees the host's /usr and /etc read-only over virtio-9p, so it runs the host's own rdma-core, Python and
#     Shoal's host-built binaries, and the repository read-write at the same absolute path;
#   * binds rxe0 to a dummy netdev with the address 10.255.255.1 (rxe on lo or a veth pair fails rdma_cm or
#     IPv4 GIDs), and has no network card: nothing leaves the VM.
# The command runs as root in the repository, with RDMA memory unlimited; its output streams here and its exit
# code is this script's. 124: timeout; 125: the VM or its set-up failed (the guest console is printed).
#
# The kernel and initramfs are cached in $SHOAL_RXE_VM_CACHE (default ~/.cache/shoal/rxe-vm) and rebuilt only
# when their inputs change: the kernel package linux-image-amd64 depends on, the module list, the init scripts
# and busybox. Idempotent; one image build at a time (flock). The packages it needs come from
# deploy/install-deps.sh.
set -euo pipefail
export LC_ALL=C

timeout_s=900 memory_mb=1536
while getopts "t:m:" option; do
  case $option in
    t) timeout_s=$OPTARG ;;
    m) memory_mb=$OPTARG ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[[ ${1:-} == -- ]] && shift
(($# > 0)) || { echo "usage: $0 [-t SECONDS] [-m MiB] -- COMMAND [ARG...]" >&2; exit 2; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
case $repo in *,* | *[[:space:]]* | *[\'\"\$\`\\]*)
  echo "rxe-vm: the repository path must not contain commas, blanks or quotes: $repo" >&2; exit 2 ;;
esac
cache=${SHOAL_RXE_VM_CACHE:-$HOME/.cache/shoal/rxe-vm}
log() { echo "[rxe-vm $(date +%T)] $*" >&2; }

for tool in qemu-system-x86_64 busybox depmod cpio xz rdma; do
  command -v "$tool" > /dev/null || { echo "rxe-vm: $tool is missing; run deploy/install-deps.sh" >&2; exit 125; }
done
if ldd "$(command -v busybox)" > /dev/null 2>&1; then
  echo "rxe-vm: busybox is dynamically linked; install busybox-static" >&2; exit 125
fi

mkdir -p "$cache"
exec 9> "$cache/.lock"
flock 9

# --- guest kernel: the image linux-image-amd64 depends on, with the modules the guest loads
kernel_package=$(apt-cache depends linux-image-amd64 2> /dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
if [[ -z $kernel_package ]]; then
  apt-get update -qq
  kernel_package=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
fi
kernel_version=${kernel_package#linux-image-}
kernel_dir=$cache/$kernel_version
modules="virtio_pci 9pnet_virtio 9p virtio_console crc32_generic rdma_rxe rdma_ucm dummy"
if [[ ! -f $kernel_dir/.done || "$(cat "$kernel_dir/.modules" 2> /dev/null)" != "$modules" ]]; then
  log "fetching $kernel_package (once)"
  rm -rf "$kernel_dir"
  mkdir -p "$kernel_dir/unpacked" "$kernel_dir/modules"
  (cd "$kernel_dir/unpacked" && apt-get download "$kernel_package" > /dev/null 2>&1) ||
    (cd "$kernel_dir/unpacked" && apt-get update -qq && apt-get download "$kernel_package" > /dev/null)
  dpkg-deb -x "$kernel_dir"/unpacked/*.deb "$kernel_dir/unpacked/root"
  depmod -b "$kernel_dir/unpacked/root" "$kernel_version"
  cp "$kernel_dir/unpacked/root/boot/vmlinuz-$kernel_version" "$kernel_dir/vmlinuz"
  # An uncompressed vmlinux boots through its PVH entry point: about 2 s faster under TCG than the bzImage.
  offset=$(grep -obUaP '\xfd7zXZ\x00' "$kernel_dir/vmlinuz" | head -1 | cut -d: -f1 || true)
  if [[ -n $offset ]] && { tail -c +$((offset + 1)) "$kernel_dir/vmlinuz" || :; } |
      xz -dc --single-stream > "$kernel_dir/vmlinux" 2> /dev/null &&
      [[ "$(head -c4 "$kernel_dir/vmlinux" | od -An -c | tr -d ' ')" == '177ELF' ]]; then
    :
  else
    rm -f "$kernel_dir/vmlinux"
  fi
  for module in $modules; do
    modprobe -d "$kernel_dir/unpacked/root" -S "$kernel_version" --show-depends "$module" | awk '$1 == "insmod" {print $2}'
  done | awk '!seen[$0]++' | while read -r file; do
    cp "$file" "$kernel_dir/modules/"
    basename "$file" >> "$kernel_dir/modules/order"
  done
  rm -rf "$kernel_dir/unpacked"
  echo "$modules" > "$kernel_dir/.modules"
  touch "$kernel_dir/.done"
fi

# --- initramfs: busybox, the modules and the two init stages (rebuilt when any of them changes)
initrd=$kernel_dir/initramfs.cpio.gz
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
mkdir -p "$staging"/{.bb,.mods,usr,etc,proc,sys,dev,tmp,run,root,xfer,var/tmp}
ln -s usr/bin "$staging/bin"; ln -s usr/sbin "$staging/sbin"
ln -s usr/lib "$staging/lib"; ln -s usr/lib64 "$staging/lib64"
cp "$(dirname "${BASH_SOURCE[0]}")/guest-init" "$staging/init"
cp "$(dirname "${BASH_SOURCE[0]}")/guest-init2" "$staging/init2"
chmod +x "$staging/init" "$staging/init2"
sum=$({ cat "$staging/init" "$staging/init2" "$kernel_dir/modules/order"; sha256sum "$(command -v busybox)"; } |
  sha256sum | cut -c1-16)
if [[ ! -f $initrd || "$(cat "$kernel_dir/initramfs.sum" 2> /dev/null)" != "$sum" ]]; then
  cp "$(command -v busybox)" "$staging/.bb/busybox"
  cp "$kernel_dir"/modules/*.ko "$kernel_dir/modules/order" "$staging/.mods/"
  (cd "$staging" && find . | cpio -o -H newc --quiet | gzip -1) > "$initrd.tmp"
  mv "$initrd.tmp" "$initrd"
  echo "$sum" > "$kernel_dir/initramfs.sum"
  log "initramfs built ($(du -h "$initrd" | cut -f1))"
fi
rm -rf "$staging"
trap - EXIT
flock -u 9

# --- one run: its own transfer directory carries the command in and the exit code out
mkdir -p "$cache/runs"
run=$(mktemp -d "$cache/runs/run.XXXXXX")
qemu_pid="" tail_pid=""
cleanup() {
  [[ -z $qemu_pid ]] || kill "$qemu_pid" 2> /dev/null || true
  [[ -z $tail_pid ]] || kill "$tail_pid" 2> /dev/null || true
  rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 143' TERM INT
printf 'REPO=%q\n' "$repo" > "$run/vm.env"
{
  printf 'exec'
  printf ' %q' "$@"
  echo
} > "$run/cmd.sh"

kernel=$kernel_dir/vmlinuz
[[ -f $kernel_dir/vmlinux ]] && kernel=$kernel_dir/vmlinux
share() { echo "-fsdev local,id=$1,path=$2,security_model=none,multidevs=remap$3 -device virtio-9p-pci,fsdev=$1,mount_tag=$1"; }
log "booting the soft-RoCE VM (TCG, 2 vCPUs, $memory_mb MiB) for: $*"
started=$SECONDS
: > "$run/out.log"
set +e
# shellcheck disable=SC2046
timeout -k 5 "$timeout_s" qemu-system-x86_64 \
  -nodefaults -no-user-config -display none -no-reboot \
  -accel tcg,thread=multi -cpu max -M pc -m "$memory_mb" -smp 2 \
  -kernel "$kernel" -initrd "$initrd" \
  -append "console=ttyS0 loglevel=4 panic=-1 mitigations=off random.trust_cpu=on" \
  -serial "file:$run/console.log" \
  $(share usr /usr ,readonly=on) $(share etc /etc ,readonly=on) $(share xfer "$run" "") $(share repo "$repo" "") \
  -device virtio-serial-pci -chardev file,id=cout,path="$run/out.log" -device virtserialport,chardev=cout,name=cout \
  < /dev/null 2> "$run/qemu.err" &
qemu_pid=$!
# The command's output streams through a virtio-serial port into out.log; tail follows it until qemu exits.
tail -s 0.2 -n +1 -f --pid=$qemu_pid "$run/out.log" &
tail_pid=$!
wait $qemu_pid
qemu_status=$?
qemu_pid=""
wait $tail_pid
tail_pid=""
set -e
log "the VM ran for $((SECONDS - started)) s"
if [[ -f $run/rc && "$(cat "$run/rc")" != 125 ]]; then
  exit "$(cat "$run/rc")"
fi
{
  echo "rxe-vm: the VM failed (qemu exit $qemu_status); qemu said:"
  cat "$run/qemu.err"
  echo "rxe-vm: the end of the guest console:"
  tail -n 60 "$run/console.log" 2> /dev/null
} >&2
[[ $qemu_status == 124 || $qemu_status == 137 ]] && exit 124
exit 125
