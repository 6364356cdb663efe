#!/bin/sh
# Builds the Debian 12 VM image the VM test boots (and the Vagrant box starts from), from
# Debian packages only, with mmdebstrap (PLATFORM-NOTES: no loop mounts, no bootloader):
#   <cache>/root.qcow2   ext4 root file system (/dev/vda), systemd, sshd, containerd, nftables
#   <cache>/vmlinux      the kernel as an ELF image (QEMU boots it directly: faster under TCG)
#   <cache>/initrd.img   its initramfs
#   <cache>/id_ed25519   the key root accepts over ssh
# Its /etc/resolv.conf names 10.77.0.1, the host's end of the VM test's bridge (test-vm.mjs); the
# Vagrant lab's networks differ, and vagrant/Vagrantfile writes each VM's own before installing.
# Reused when present and built from the same package list; delete the directory to rebuild.
set -eu
CACHE=${1:-/var/cache/capstan-vm}
PACKAGES="systemd,systemd-sysv,udev,dbus,kmod,iproute2,openssh-server,sudo,procps,linux-image-amd64,initramfs-tools,ca-certificates,containerd,runc,nftables,conntrack,iputils-ping,netbase"
# Bump when the image's content changes in a way the package list does not show.
IMAGE_VERSION=1
STAMP="$(printf '%s\n' "$IMAGE_VERSION" "$PACKAGES" | sha256sum | cut -d' ' -f1)"
mkdir -p "$CACHE"
if [ -f "$CACHE/stamp" ] && [ "$(cat "$CACHE/stamp")" = "$STAMP" ] && [ -f "$CACHE/root.qcow2" ]; then
  echo "image: reusing $CACHE"
  exit 0
fi
for tool in mmdebstrap mkfs.ext4 qemu-img; do
  command -v "$tool" >/dev/null || { echo "image: $tool is missing (apt-get install mmdebstrap e2fsprogs qemu-utils)" >&2; exit 1; }
done
[ -f "$CACHE/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C capstan-vm -f "$CACHE/id_ed25519"
ROOT="$CACHE/rootfs"
rm -rf "$ROOT" "$CACHE/root.raw"
mmdebstrap --variant=minbase --mode=root --include="$PACKAGES" \
  --customize-hook='echo "/dev/vda / ext4 defaults 0 1" > "$1/etc/fstab"' \
  --customize-hook='rm -f "$1/etc/hostname"' \
  --customize-hook='mkdir -p "$1/root/.ssh" && chmod 700 "$1/root/.ssh"' \
  --customize-hook="cp '$CACHE/id_ed25519.pub' \"\$1/root/.ssh/authorized_keys\"" \
  --customize-hook='chroot "$1" systemctl enable systemd-networkd systemd-network-generator ssh serial-getty@ttyS0' \
  --customize-hook='printf "nameserver 10.77.0.1\n" > "$1/etc/resolv.conf"' \
  bookworm "$ROOT"
KVER=$(ls "$ROOT/lib/modules" | head -n 1)
cp "$ROOT/boot/initrd.img-$KVER" "$CACHE/initrd.img"
# The vmlinuz is a bzImage with the compressed ELF inside: find its payload and unpack it.
python3 - "$ROOT/boot/vmlinuz-$KVER" "$CACHE/vmlinux" <<'PY'
import lzma, sys, zlib
data = open(sys.argv[1], 'rb').read()
for magic, unpack in ((b'\xfd7zXZ\x00', lambda b: lzma.LZMADecompressor().decompress(b)),
                      (b'\x1f\x8b\x08', lambda b: zlib.decompressobj(31).decompress(b))):
    i = data.find(magic)
    while i >= 0:
        try:
            out = unpack(data[i:])
            if out[:4] == b'\x7fELF':
                open(sys.argv[2], 'wb').write(out)
                sys.exit(0)
        except Exception:
            pass
        i = data.find(magic, i + 1)
sys.exit('no ELF kernel found in ' + sys.argv[1])
PY
mkfs.ext4 -q -F -L root -d "$ROOT" "$CACHE/root.raw" 4G
qemu-img convert -O qcow2 "$CACHE/root.raw" "$CACHE/root.qcow2"
rm -rf "$ROOT" "$CACHE/root.raw"
echo "$STAMP" > "$CACHE/stamp"
echo "image: built $CACHE/root.qcow2 (kernel $KVER)"
