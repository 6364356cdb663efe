// Links: veth pairs (peer optionally created straight into another namespace), VXLAN
// devices, attribute changes, deletion and listing.
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <unistd.h>

#include <cstring>

#include "netlink_exec.h"

namespace capstan::nl {

uint32_t IndexOf(const std::string& name) { return if_nametoindex(name.c_str()); }

std::string NameOf(uint32_t index) {
  char buf[IF_NAMESIZE] = {};
  return if_indextoname(index, buf) ? std::string(buf) : std::string();
}

namespace {

// An fd for a namespace path, closed when the operation is done.
struct NetnsFd {
  int fd = -1;
  explicit NetnsFd(const std::string& path) {
    if (!path.empty()) fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  }
  ~NetnsFd() {
    if (fd >= 0) close(fd);
  }
};

void PutCommon(nlmsghdr* nlh, const std::string& name, const std::optional<uint32_t>& mtu,
               const std::optional<std::vector<uint8_t>>& mac) {
  if (!name.empty()) mnl_attr_put_strz(nlh, IFLA_IFNAME, name.c_str());
  if (mtu) mnl_attr_put_u32(nlh, IFLA_MTU, *mtu);
  if (mac) mnl_attr_put(nlh, IFLA_ADDRESS, mac->size(), mac->data());
}

int AddVeth(Socket& s, const Op& op, Result& r) {
  NetnsFd peerNs(op.peerNetns);
  if (!op.peerNetns.empty() && peerNs.fd < 0) return errno;
  nlmsghdr* nlh = s.Begin(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
  auto* ifi = static_cast<ifinfomsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(ifinfomsg)));
  ifi->ifi_family = AF_UNSPEC;
  PutCommon(nlh, op.name, op.mtu, op.mac);
  nlattr* linkinfo = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
  mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "veth");
  nlattr* data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
  nlattr* peer = mnl_attr_nest_start(nlh, VETH_INFO_PEER);
  // The peer is described by its own ifinfomsg followed by link attributes.
  auto* pifi = static_cast<ifinfomsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(ifinfomsg)));
  pifi->ifi_family = AF_UNSPEC;
  PutCommon(nlh, op.peerName, op.peerMtu ? op.peerMtu : op.mtu, op.peerMac);
  if (peerNs.fd >= 0) mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, peerNs.fd);
  mnl_attr_nest_end(nlh, peer);
  mnl_attr_nest_end(nlh, data);
  mnl_attr_nest_end(nlh, linkinfo);
  return s.Request(nlh, &r.message);
}

int AddVxlan(Socket& s, const Op& op, Result& r) {
  uint32_t underlay = 0;
  if (!op.dev.empty() && !(underlay = IndexOf(op.dev))) return ENODEV;
  nlmsghdr* nlh = s.Begin(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
  auto* ifi = static_cast<ifinfomsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(ifinfomsg)));
  ifi->ifi_family = AF_UNSPEC;
  PutCommon(nlh, op.name, op.mtu, op.mac);
  nlattr* linkinfo = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
  mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "vxlan");
  nlattr* data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
  mnl_attr_put_u32(nlh, IFLA_VXLAN_ID, *op.vni);
  if (op.port) mnl_attr_put_u16(nlh, IFLA_VXLAN_PORT, htons(static_cast<uint16_t>(*op.port)));
  if (op.local) {
    mnl_attr_put(nlh, op.local->family == AF_INET ? IFLA_VXLAN_LOCAL : IFLA_VXLAN_LOCAL6,
                 op.local->Len(), op.local->bytes);
  }
  if (underlay) mnl_attr_put_u32(nlh, IFLA_VXLAN_LINK, underlay);
  mnl_attr_put_u8(nlh, IFLA_VXLAN_LEARNING, op.learning.value_or(false) ? 1 : 0);
  mnl_attr_nest_end(nlh, data);
  mnl_attr_nest_end(nlh, linkinfo);
  return s.Request(nlh, &r.message);
}

int SetLink(Socket& s, const Op& op, Result& r) {
  uint32_t index = IndexOf(op.name);
  if (!index) return ENODEV;
  NetnsFd targetNs(op.netns);
  if (!op.netns.empty() && targetNs.fd < 0) return errno;
  nlmsghdr* nlh = s.Begin(RTM_NEWLINK, 0);
  auto* ifi = static_cast<ifinfomsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(ifinfomsg)));
  ifi->ifi_family = AF_UNSPEC;
  ifi->ifi_index = static_cast<int>(index);
  if (op.up) {
    ifi->ifi_change = IFF_UP;
    ifi->ifi_flags = *op.up ? IFF_UP : 0;
  }
  PutCommon(nlh, op.newName, op.mtu, op.mac);
  if (targetNs.fd >= 0) mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, targetNs.fd);
  return s.Request(nlh, &r.message);
}

int DelLink(Socket& s, const Op& op, Result& r) {
  uint32_t index = IndexOf(op.name);
  if (!index) return ENODEV;
  nlmsghdr* nlh = s.Begin(RTM_DELLINK, 0);
  auto* ifi = static_cast<ifinfomsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(ifinfomsg)));
  ifi->ifi_family = AF_UNSPEC;
  ifi->ifi_index = static_cast<int>(index);
  return s.Request(nlh, &r.message);
}

void ParseVxlan(const nlattr* data, LinkInfo& l) {
  const nlattr* a;
  CAPSTAN_ATTR_FOR_EACH_NESTED(a, data) {
    switch (mnl_attr_get_type(a)) {
      case IFLA_VXLAN_ID: l.vni = mnl_attr_get_u32(a); break;
      case IFLA_VXLAN_PORT: l.vxlanPort = ntohs(mnl_attr_get_u16(a)); break;
      case IFLA_VXLAN_LINK: l.vxlanLink = mnl_attr_get_u32(a); break;
      case IFLA_VXLAN_LEARNING: l.vxlanLearning = mnl_attr_get_u8(a) != 0; break;
      case IFLA_VXLAN_LOCAL:
      case IFLA_VXLAN_LOCAL6: {
        IpAddr ip;
        ip.family = mnl_attr_get_type(a) == IFLA_VXLAN_LOCAL ? AF_INET : AF_INET6;
        if (mnl_attr_get_payload_len(a) >= static_cast<uint16_t>(ip.Len())) {
          memcpy(ip.bytes, mnl_attr_get_payload(a), ip.Len());
          l.vxlanLocal = ip;
        }
        break;
      }
    }
  }
}

void ParseLinkInfo(const nlattr* info, LinkInfo& l) {
  const nlattr* a;
  const nlattr* data = nullptr;
  CAPSTAN_ATTR_FOR_EACH_NESTED(a, info) {
    if (mnl_attr_get_type(a) == IFLA_INFO_KIND) l.kind = mnl_attr_get_str(a);
    if (mnl_attr_get_type(a) == IFLA_INFO_DATA) data = a;
  }
  if (data && l.kind == "vxlan") ParseVxlan(data, l);
}

int ListLinks(Socket& s, Result& r) {
  nlmsghdr* nlh = s.Begin(RTM_GETLINK, 0);
  auto* ifi = static_cast<ifinfomsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(ifinfomsg)));
  ifi->ifi_family = AF_UNSPEC;
  return s.Dump(nlh, [&](const nlmsghdr* m) {
    if (m->nlmsg_type != RTM_NEWLINK) return;
    const auto* im = static_cast<const ifinfomsg*>(mnl_nlmsg_get_payload(m));
    LinkInfo l;
    l.index = static_cast<uint32_t>(im->ifi_index);
    l.flags = im->ifi_flags;
    const nlattr* a;
    CAPSTAN_ATTR_FOR_EACH(a, m, sizeof(ifinfomsg)) {
      switch (mnl_attr_get_type(a)) {
        case IFLA_IFNAME: l.name = mnl_attr_get_str(a); break;
        case IFLA_MTU: l.mtu = mnl_attr_get_u32(a); break;
        case IFLA_LINK: l.link = mnl_attr_get_u32(a); break;
        case IFLA_MASTER: l.master = mnl_attr_get_u32(a); break;
        case IFLA_LINK_NETNSID: l.linkNetnsId = static_cast<int32_t>(mnl_attr_get_u32(a)); break;
        case IFLA_OPERSTATE: l.operstate = mnl_attr_get_u8(a); break;
        case IFLA_ADDRESS: {
          auto* p = static_cast<const uint8_t*>(mnl_attr_get_payload(a));
          l.mac.assign(p, p + mnl_attr_get_payload_len(a));
          break;
        }
        case IFLA_LINKINFO: ParseLinkInfo(a, l); break;
      }
    }
    r.links.push_back(std::move(l));
  });
}

}  // namespace

int ExecLink(Socket& s, const Op& op, Result& r) {
  switch (op.kind) {
    case Kind::LinkAddVeth: return AddVeth(s, op, r);
    case Kind::LinkAddVxlan: return AddVxlan(s, op, r);
    case Kind::LinkSet: return SetLink(s, op, r);
    case Kind::LinkDel: return DelLink(s, op, r);
    case Kind::LinkList: return ListLinks(s, r);
    default: return EINVAL;
  }
}

}  // namespace capstan::nl
