// Plain C++ descriptions of rtnetlink operations and their results. Parsed from JS on the
// JS thread (netlink_parse.cc), executed off it (netlink_exec*.cc), converted back on it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace capstan::nl {

struct IpAddr {
  int family = 0;  // AF_INET or AF_INET6
  uint8_t bytes[16] = {};
  int Len() const { return family == 2 /*AF_INET*/ ? 4 : 16; }
};

enum class Kind {
  LinkAddVeth, LinkAddVxlan, LinkSet, LinkDel, LinkList,
  AddrAdd, AddrDel, AddrList,
  RouteAdd, RouteReplace, RouteDel, RouteList,
  NeighAdd, NeighReplace, NeighDel, NeighList,
  FdbAdd, FdbReplace, FdbDel, FdbList,
  SysctlWrite, SysctlRead,
};

struct Op {
  Kind kind;
  std::string name, peerName, peerNetns, dev, newName, netns, path, value;
  std::optional<uint32_t> mtu, peerMtu, vni, port, metric, table, protocol;
  std::optional<std::vector<uint8_t>> mac, peerMac;
  std::optional<IpAddr> local, address, via;
  std::optional<IpAddr> dst;  // absent with family set = default route
  uint8_t prefixLen = 0;
  int family = 0;             // for lists and default routes: 0 (all), AF_INET, AF_INET6
  std::optional<uint8_t> scope;
  std::optional<uint8_t> routeType;  // RTN_*; absent: unicast (new), any (delete)
  std::optional<bool> up, learning, onlink, nodad;
};

struct LinkInfo {
  uint32_t index = 0, mtu = 0, flags = 0, link = 0, master = 0;
  int32_t linkNetnsId = -1;
  uint8_t operstate = 0;
  std::string name, kind;
  std::vector<uint8_t> mac;
  std::optional<uint32_t> vni, vxlanLink;
  std::optional<uint16_t> vxlanPort;
  std::optional<bool> vxlanLearning;
  std::optional<IpAddr> vxlanLocal;
};

struct AddrInfo {
  uint32_t index = 0;
  uint8_t prefixLen = 0, scope = 0;
  uint32_t flags = 0;
  IpAddr address;
  std::string dev;
};

struct RouteInfo {
  uint8_t dstLen = 0, scope = 0, protocol = 0, type = 0;
  int family = 0;
  uint32_t table = 0, flags = 0, oif = 0;
  std::optional<uint32_t> metric;
  std::optional<IpAddr> dst, via, prefsrc;
  std::string dev;
};

struct NeighInfo {
  uint32_t index = 0;
  uint16_t state = 0;
  uint8_t flags = 0;
  int family = 0;
  std::optional<IpAddr> dst;
  std::vector<uint8_t> lladdr;
  std::string dev;
  std::optional<uint32_t> master;
};

struct Result {
  int err = 0;          // positive errno, 0 on success
  bool skipped = false;  // not attempted because an earlier operation failed
  std::string message;
  std::vector<LinkInfo> links;
  std::vector<AddrInfo> addrs;
  std::vector<RouteInfo> routes;
  std::vector<NeighInfo> neighs;
  std::optional<std::string> value;
};

// Runs ops in order in the current thread's namespace; stops at the first failure unless
// continueOnError (the rest are marked skipped).
std::vector<Result> RunBatch(const std::vector<Op>& ops, bool continueOnError);

}  // namespace capstan::nl
