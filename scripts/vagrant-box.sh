#!/bin/sh
# Builds the Vagrant box (libvirt provider) the lab in vagrant/ boots: the Debian 12 image of
# scripts/vm/image.sh (built from Debian packages, or reused from its cache) packed as a box.
#   sh scripts/vagrant-box.sh [BOX_FILE] [IMAGE_CACHE]
#     BOX_FILE     default vagrant/.box/capstan-debian12.box (where vagrant/Vagrantfile looks)
#     IMAGE_CACHE  default /var/cache/capstan-vm (image.sh's)
# The box holds box.img (the qcow2 root file system), metadata.json, the kernel as an ELF
# vmlinux and its initrd (no bootloader: libvirt boots the kernel directly, which is faster under
# software emulation), the key root accepts over ssh, and a Vagrantfile saying all that.
# Reused when the image it was built from has not changed; `vagrant box remove capstan/debian12`
# makes Vagrant take a rebuilt one.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
BOX=${1:-$HERE/../vagrant/.box/capstan-debian12.box}
CACHE=${2:-/var/cache/capstan-vm}
sh "$HERE/vm/image.sh" "$CACHE"
mkdir -p "$(dirname "$BOX")"
BOX=$(cd "$(dirname "$BOX")" && pwd)/$(basename "$BOX")
STAMP="$(cat "$CACHE/stamp") box-1"
if [ -f "$BOX" ] && [ -f "$BOX.stamp" ] && [ "$(cat "$BOX.stamp")" = "$STAMP" ]; then
  echo "vagrant-box: reusing $BOX"
  exit 0
fi
WORK=$(mktemp -d "$(dirname "$BOX")/.box-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cp "$CACHE/vmlinux" "$CACHE/initrd.img" "$CACHE/id_ed25519" "$WORK/"
# A copy, not a backing-file overlay: the box must stand alone once Vagrant has imported it.
cp --sparse=always "$CACHE/root.qcow2" "$WORK/box.img"
SIZE=$(qemu-img info --output=json "$WORK/box.img" | python3 -c 'import json,sys; print(-(-json.load(sys.stdin)["virtual-size"] // 2**30))')
printf '{"provider":"libvirt","format":"qcow2","virtual_size":%s}\n' "$SIZE" > "$WORK/metadata.json"
cat > "$WORK/Vagrantfile" <<'RUBY'
# The capstan Debian 12 box (scripts/vagrant-box.sh): root logs in with the box's key; the
# kernel boots directly, its management interface (eth0) asks libvirt's DHCP for an address.
Vagrant.configure("2") do |config|
  config.ssh.username = "root"
  config.ssh.private_key_path = File.join(__dir__, "id_ed25519")
  config.ssh.insert_key = false
  config.vm.provider :libvirt do |lv|
    lv.driver = "qemu"
    lv.disk_bus = "virtio"
    lv.kernel = File.join(__dir__, "vmlinux")
    lv.initrd = File.join(__dir__, "initrd.img")
    lv.cmd_line = "console=ttyS0 root=/dev/vda rw net.ifnames=0 ip=eth0:dhcp"
  end
end
RUBY
tar -C "$WORK" -cSf "$BOX.tmp" metadata.json Vagrantfile box.img vmlinux initrd.img id_ed25519
mv "$BOX.tmp" "$BOX"
echo "$STAMP" > "$BOX.stamp"
echo "vagrant-box: built $BOX ($(du -h "$BOX" | cut -f1))"
