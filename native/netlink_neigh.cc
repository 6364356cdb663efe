// Permanent neighbour entries and bridge FDB entries (the latter for VXLAN devices:
// AF_BRIDGE + NTF_SELF, with the remote VTEP as NDA_DST).
#include <errno.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>

#include <cstring>

#include "netlink_exec.h"

namespace capstan::nl {

namespace {

bool IsFdb(Kind k) { return k == Kind::FdbAdd || k == Kind::FdbReplace || k == Kind::FdbDel || k == Kind::FdbList; }

int ModifyNeigh(Socket& s, const Op& op, Result& r) {
  uint32_t index = IndexOf(op.dev);
  if (!index) return ENODEV;
  bool fdb = IsFdb(op.kind);
  bool del = op.kind == Kind::NeighDel || op.kind == Kind::FdbDel;
  uint16_t flags = 0;
  if (op.kind == Kind::NeighAdd || op.kind == Kind::FdbAdd) flags = NLM_F_CREATE | NLM_F_EXCL;
  if (op.kind == Kind::NeighReplace || op.kind == Kind::FdbReplace) flags = NLM_F_CREATE | NLM_F_REPLACE;
  nlmsghdr* nlh = s.Begin(del ? RTM_DELNEIGH : RTM_NEWNEIGH, flags);
  auto* nd = static_cast<ndmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(ndmsg)));
  nd->ndm_family = static_cast<uint8_t>(fdb ? AF_BRIDGE : op.address->family);
  nd->ndm_ifindex = static_cast<int>(index);
  nd->ndm_state = NUD_PERMANENT;
  nd->ndm_flags = fdb ? NTF_SELF : 0;
  if (op.address) mnl_attr_put(nlh, NDA_DST, op.address->Len(), op.address->bytes);
  if (op.mac) mnl_attr_put(nlh, NDA_LLADDR, op.mac->size(), op.mac->data());
  return s.Request(nlh, &r.message);
}

int ListNeighs(Socket& s, const Op& op, Result& r) {
  bool fdb = op.kind == Kind::FdbList;
  nlmsghdr* nlh = s.Begin(RTM_GETNEIGH, 0);
  auto* nd = static_cast<ndmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(ndmsg)));
  nd->ndm_family = static_cast<uint8_t>(fdb ? AF_BRIDGE : op.family);
  return s.Dump(nlh, [&](const nlmsghdr* m) {
    if (m->nlmsg_type != RTM_NEWNEIGH) return;
    const auto* nm = static_cast<const ndmsg*>(mnl_nlmsg_get_payload(m));
    NeighInfo info;
    info.family = nm->ndm_family;
    info.index = static_cast<uint32_t>(nm->ndm_ifindex);
    info.state = nm->ndm_state;
    info.flags = nm->ndm_flags;
    const nlattr* a;
    CAPSTAN_ATTR_FOR_EACH(a, m, sizeof(ndmsg)) {
      switch (mnl_attr_get_type(a)) {
        case NDA_DST: {
          IpAddr ip;
          uint16_t len = mnl_attr_get_payload_len(a);
          ip.family = len == 4 ? AF_INET : AF_INET6;
          if (len == 4 || len == 16) {
            memcpy(ip.bytes, mnl_attr_get_payload(a), len);
            info.dst = ip;
          }
          break;
        }
        case NDA_LLADDR: {
          auto* p = static_cast<const uint8_t*>(mnl_attr_get_payload(a));
          info.lladdr.assign(p, p + mnl_attr_get_payload_len(a));
          break;
        }
        case NDA_MASTER: info.master = mnl_attr_get_u32(a); break;
      }
    }
    info.dev = NameOf(info.index);
    r.neighs.push_back(std::move(info));
  });
}

}  // namespace

int ExecNeigh(Socket& s, const Op& op, Result& r) {
  if (op.kind == Kind::NeighList || op.kind == Kind::FdbList) return ListNeighs(s, op, r);
  return ModifyNeigh(s, op, r);
}

}  // namespace capstan::nl
