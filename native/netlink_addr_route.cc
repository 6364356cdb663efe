// Addresses and routes.
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>

#include <cstring>

#include "netlink_exec.h"

namespace capstan::nl {

namespace {

std::optional<IpAddr> AttrIp(const nlattr* a, int family) {
  IpAddr ip;
  ip.family = family;
  if (mnl_attr_get_payload_len(a) < static_cast<uint16_t>(ip.Len())) return std::nullopt;
  memcpy(ip.bytes, mnl_attr_get_payload(a), ip.Len());
  return ip;
}

int ModifyAddr(Socket& s, const Op& op, Result& r) {
  uint32_t index = IndexOf(op.dev);
  if (!index) return ENODEV;
  bool add = op.kind == Kind::AddrAdd;
  nlmsghdr* nlh = s.Begin(add ? RTM_NEWADDR : RTM_DELADDR, add ? NLM_F_CREATE | NLM_F_EXCL : 0);
  auto* ifa = static_cast<ifaddrmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(ifaddrmsg)));
  ifa->ifa_family = static_cast<uint8_t>(op.address->family);
  ifa->ifa_prefixlen = op.prefixLen;
  ifa->ifa_index = index;
  ifa->ifa_scope = op.scope.value_or(static_cast<uint8_t>(RT_SCOPE_UNIVERSE));
  mnl_attr_put(nlh, IFA_LOCAL, op.address->Len(), op.address->bytes);
  mnl_attr_put(nlh, IFA_ADDRESS, op.address->Len(), op.address->bytes);
  if (add && op.nodad.value_or(false)) mnl_attr_put_u32(nlh, IFA_FLAGS, IFA_F_NODAD);
  return s.Request(nlh, &r.message);
}

int ListAddrs(Socket& s, const Op& op, Result& r) {
  nlmsghdr* nlh = s.Begin(RTM_GETADDR, 0);
  auto* ifa = static_cast<ifaddrmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(ifaddrmsg)));
  ifa->ifa_family = static_cast<uint8_t>(op.family);
  return s.Dump(nlh, [&](const nlmsghdr* m) {
    if (m->nlmsg_type != RTM_NEWADDR) return;
    const auto* am = static_cast<const ifaddrmsg*>(mnl_nlmsg_get_payload(m));
    AddrInfo info;
    info.index = am->ifa_index;
    info.prefixLen = am->ifa_prefixlen;
    info.scope = am->ifa_scope;
    info.flags = am->ifa_flags;
    bool haveLocal = false;
    const nlattr* a;
    CAPSTAN_ATTR_FOR_EACH(a, m, sizeof(ifaddrmsg)) {
      int t = mnl_attr_get_type(a);
      if (t == IFA_LOCAL || (t == IFA_ADDRESS && !haveLocal)) {
        if (auto ip = AttrIp(a, am->ifa_family)) info.address = *ip;
        haveLocal = haveLocal || t == IFA_LOCAL;
      } else if (t == IFA_FLAGS) {
        info.flags = mnl_attr_get_u32(a);
      }
    }
    info.dev = NameOf(info.index);
    r.addrs.push_back(info);
  });
}

int ModifyRoute(Socket& s, const Op& op, Result& r) {
  uint32_t oif = 0;
  if (!op.dev.empty() && !(oif = IndexOf(op.dev))) return ENODEV;
  uint16_t flags = 0;
  uint16_t type = RTM_NEWROUTE;
  if (op.kind == Kind::RouteAdd) flags = NLM_F_CREATE | NLM_F_EXCL;
  if (op.kind == Kind::RouteReplace) flags = NLM_F_CREATE | NLM_F_REPLACE;
  if (op.kind == Kind::RouteDel) type = RTM_DELROUTE;
  int family = op.dst ? op.dst->family : op.family;
  uint32_t table = op.table.value_or(static_cast<uint32_t>(RT_TABLE_MAIN));

  nlmsghdr* nlh = s.Begin(type, flags);
  auto* rtm = static_cast<rtmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(rtmsg)));
  rtm->rtm_family = static_cast<uint8_t>(family);
  rtm->rtm_dst_len = op.dst ? op.prefixLen : 0;
  rtm->rtm_table = table < 256 ? static_cast<uint8_t>(table) : static_cast<uint8_t>(RT_TABLE_UNSPEC);
  if (type == RTM_DELROUTE) {
    // Zero protocol/scope/type act as wildcards for deletion, like `ip route del`.
    rtm->rtm_scope = op.scope.value_or(static_cast<uint8_t>(RT_SCOPE_NOWHERE));
    rtm->rtm_protocol = static_cast<uint8_t>(op.protocol.value_or(0));
    rtm->rtm_type = op.routeType.value_or(static_cast<uint8_t>(RTN_UNSPEC));
  } else {
    rtm->rtm_scope = op.scope.value_or(static_cast<uint8_t>(RT_SCOPE_UNIVERSE));
    rtm->rtm_protocol = static_cast<uint8_t>(op.protocol.value_or(RTPROT_BOOT));
    rtm->rtm_type = op.routeType.value_or(static_cast<uint8_t>(RTN_UNICAST));
  }
  if (op.onlink.value_or(false)) rtm->rtm_flags |= RTNH_F_ONLINK;
  mnl_attr_put_u32(nlh, RTA_TABLE, table);
  if (op.dst) mnl_attr_put(nlh, RTA_DST, op.dst->Len(), op.dst->bytes);
  if (op.via) mnl_attr_put(nlh, RTA_GATEWAY, op.via->Len(), op.via->bytes);
  if (oif) mnl_attr_put_u32(nlh, RTA_OIF, oif);
  if (op.metric) mnl_attr_put_u32(nlh, RTA_PRIORITY, *op.metric);
  return s.Request(nlh, &r.message);
}

int ListRoutes(Socket& s, const Op& op, Result& r) {
  nlmsghdr* nlh = s.Begin(RTM_GETROUTE, 0);
  auto* rtm = static_cast<rtmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(rtmsg)));
  rtm->rtm_family = static_cast<uint8_t>(op.family);
  return s.Dump(nlh, [&](const nlmsghdr* m) {
    if (m->nlmsg_type != RTM_NEWROUTE) return;
    const auto* rm = static_cast<const rtmsg*>(mnl_nlmsg_get_payload(m));
    RouteInfo info;
    info.family = rm->rtm_family;
    info.dstLen = rm->rtm_dst_len;
    info.scope = rm->rtm_scope;
    info.protocol = rm->rtm_protocol;
    info.type = rm->rtm_type;
    info.table = rm->rtm_table;
    info.flags = rm->rtm_flags;
    const nlattr* a;
    CAPSTAN_ATTR_FOR_EACH(a, m, sizeof(rtmsg)) {
      switch (mnl_attr_get_type(a)) {
        case RTA_TABLE: info.table = mnl_attr_get_u32(a); break;
        case RTA_DST: info.dst = AttrIp(a, rm->rtm_family); break;
        case RTA_GATEWAY: info.via = AttrIp(a, rm->rtm_family); break;
        case RTA_PREFSRC: info.prefsrc = AttrIp(a, rm->rtm_family); break;
        case RTA_OIF: info.oif = mnl_attr_get_u32(a); break;
        case RTA_PRIORITY: info.metric = mnl_attr_get_u32(a); break;
      }
    }
    if (info.oif) info.dev = NameOf(info.oif);
    r.routes.push_back(info);
  });
}

}  // namespace

int ExecAddr(Socket& s, const Op& op, Result& r) {
  return op.kind == Kind::AddrList ? ListAddrs(s, op, r) : ModifyAddr(s, op, r);
}

int ExecRoute(Socket& s, const Op& op, Result& r) {
  return op.kind == Kind::RouteList ? ListRoutes(s, op, r) : ModifyRoute(s, op, r);
}

}  // namespace capstan::nl
