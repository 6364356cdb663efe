// JS <-> C++ for rtnetlink batches: argument parsing (TypeErrors) and result objects.
#include <arpa/inet.h>
#include <linux/rtnetlink.h>

#include <cstdio>
#include <map>

#include "addon.h"
#include "async_task.h"
#include "js_args.h"
#include "netlink_ops.h"
#include "netns_thread.h"

namespace capstan {

using namespace nl;

namespace {

[[noreturn]] void Fail(Napi::Env env, const std::string& msg) { throw Napi::TypeError::New(env, msg); }

IpAddr ParseIp(Napi::Env env, const std::string& text, const std::string& ctx) {
  IpAddr ip;
  if (inet_pton(AF_INET, text.c_str(), ip.bytes) == 1) {
    ip.family = AF_INET;
  } else if (inet_pton(AF_INET6, text.c_str(), ip.bytes) == 1) {
    ip.family = AF_INET6;
  } else {
    Fail(env, ctx + " is not an IP address: " + text);
  }
  return ip;
}

// "10.0.0.1/24" → address + prefix; a bare address gets the full-length prefix.
IpAddr ParseCidr(Napi::Env env, const std::string& text, const std::string& ctx, uint8_t& prefix) {
  auto slash = text.find('/');
  IpAddr ip = ParseIp(env, text.substr(0, slash), ctx);
  int max = ip.family == AF_INET ? 32 : 128;
  prefix = static_cast<uint8_t>(max);
  if (slash != std::string::npos) {
    std::string p = text.substr(slash + 1);
    char* end = nullptr;
    long v = strtol(p.c_str(), &end, 10);
    if (p.empty() || *end || v < 0 || v > max) Fail(env, ctx + " has a bad prefix length: " + text);
    prefix = static_cast<uint8_t>(v);
  }
  return ip;
}

std::vector<uint8_t> ParseMac(Napi::Env env, const std::string& text, const std::string& ctx) {
  std::vector<uint8_t> mac(6);
  unsigned v[6];
  char tail;
  if (sscanf(text.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &tail) != 6)
    Fail(env, ctx + " is not a MAC address: " + text);
  for (int i = 0; i < 6; i++) mac[i] = static_cast<uint8_t>(v[i]);
  return mac;
}

std::string CheckIfname(Napi::Env env, const std::string& name, const std::string& ctx) {
  if (name.empty() || name.size() >= 16 || name.find('/') != std::string::npos)
    Fail(env, ctx + " is not a valid interface name: '" + name + "'");
  return name;
}

int FamilyArg(const Napi::Object& o, const std::string& ctx) {
  auto f = js::OptU32(o, "family", ctx);
  if (!f || *f == 0) return AF_UNSPEC;
  if (*f == 4) return AF_INET;
  if (*f == 6) return AF_INET6;
  Fail(o.Env(), ctx + ".family must be 4 or 6");
}

std::optional<uint8_t> ScopeArg(const Napi::Object& o, const std::string& ctx) {
  Napi::Value v = o.Get("scope");
  if (v.IsUndefined() || v.IsNull()) return std::nullopt;
  if (v.IsString()) {
    static const std::map<std::string, uint8_t> names = {
        {"universe", RT_SCOPE_UNIVERSE}, {"global", RT_SCOPE_UNIVERSE}, {"site", RT_SCOPE_SITE},
        {"link", RT_SCOPE_LINK}, {"host", RT_SCOPE_HOST}, {"nowhere", RT_SCOPE_NOWHERE}};
    auto it = names.find(v.As<Napi::String>().Utf8Value());
    if (it == names.end()) Fail(o.Env(), ctx + ".scope is not a known scope");
    return it->second;
  }
  auto n = js::OptU32(o, "scope", ctx);
  if (*n > 255) Fail(o.Env(), ctx + ".scope must fit in 8 bits");
  return static_cast<uint8_t>(*n);
}

// Route types by name; the reject types carry no next hop.
std::optional<uint8_t> RouteTypeArg(const Napi::Object& o, const std::string& ctx) {
  auto s = js::OptString(o, "type", ctx);
  if (!s) return std::nullopt;
  static const std::map<std::string, uint8_t> names = {
      {"unicast", RTN_UNICAST}, {"blackhole", RTN_BLACKHOLE}, {"unreachable", RTN_UNREACHABLE}, {"prohibit", RTN_PROHIBIT}};
  auto it = names.find(*s);
  if (it == names.end()) Fail(o.Env(), ctx + ".type is not a known route type: " + *s);
  return it->second;
}

const std::map<std::string, Kind>& KindNames() {
  static const std::map<std::string, Kind> names = {
      {"linkAddVeth", Kind::LinkAddVeth}, {"linkAddVxlan", Kind::LinkAddVxlan},
      {"linkSet", Kind::LinkSet}, {"linkDel", Kind::LinkDel}, {"linkList", Kind::LinkList},
      {"addrAdd", Kind::AddrAdd}, {"addrDel", Kind::AddrDel}, {"addrList", Kind::AddrList},
      {"routeAdd", Kind::RouteAdd}, {"routeReplace", Kind::RouteReplace},
      {"routeDel", Kind::RouteDel}, {"routeList", Kind::RouteList},
      {"neighAdd", Kind::NeighAdd}, {"neighReplace", Kind::NeighReplace},
      {"neighDel", Kind::NeighDel}, {"neighList", Kind::NeighList},
      {"fdbAdd", Kind::FdbAdd}, {"fdbReplace", Kind::FdbReplace}, {"fdbDel", Kind::FdbDel},
      {"fdbList", Kind::FdbList}, {"sysctlWrite", Kind::SysctlWrite}, {"sysctlRead", Kind::SysctlRead}};
  return names;
}

Op ParseOp(Napi::Env env, Napi::Value v, size_t i) {
  std::string ctx = "ops[" + std::to_string(i) + "]";
  Napi::Object o = js::RequireObject(env, v, ctx);
  std::string name = js::RequireString(o, "op", ctx);
  auto it = KindNames().find(name);
  if (it == KindNames().end()) Fail(env, ctx + ".op is not a known operation: " + name);
  Op op{it->second};
  ctx += " (" + name + ")";
  auto mac = [&](const char* key) -> std::optional<std::vector<uint8_t>> {
    auto s = js::OptString(o, key, ctx);
    if (!s) return std::nullopt;
    return ParseMac(env, *s, ctx + "." + key);
  };
  auto ifname = [&](const char* key) { return CheckIfname(env, js::RequireString(o, key, ctx), ctx + "." + key); };
  switch (op.kind) {
    case Kind::LinkAddVeth:
      op.name = ifname("name");
      op.peerName = ifname("peerName");
      op.peerNetns = js::OptString(o, "peerNetns", ctx).value_or("");
      op.mtu = js::OptU32(o, "mtu", ctx);
      op.peerMtu = js::OptU32(o, "peerMtu", ctx);
      op.mac = mac("mac");
      op.peerMac = mac("peerMac");
      break;
    case Kind::LinkAddVxlan:
      op.name = ifname("name");
      op.vni = js::RequireU32(o, "vni", ctx);
      if (*op.vni >= (1u << 24)) Fail(env, ctx + ".vni must be below 2^24");
      op.port = js::OptU32(o, "port", ctx);
      if (op.port && *op.port > 65535) Fail(env, ctx + ".port must be a UDP port");
      if (auto l = js::OptString(o, "local", ctx)) op.local = ParseIp(env, *l, ctx + ".local");
      if (auto d = js::OptString(o, "dev", ctx)) op.dev = CheckIfname(env, *d, ctx + ".dev");
      op.learning = js::OptBool(o, "learning", ctx);
      op.mtu = js::OptU32(o, "mtu", ctx);
      op.mac = mac("mac");
      break;
    case Kind::LinkSet:
      op.name = ifname("name");
      op.up = js::OptBool(o, "up", ctx);
      op.mtu = js::OptU32(o, "mtu", ctx);
      op.mac = mac("mac");
      if (auto n = js::OptString(o, "newName", ctx)) op.newName = CheckIfname(env, *n, ctx + ".newName");
      op.netns = js::OptString(o, "netns", ctx).value_or("");
      break;
    case Kind::LinkDel:
      op.name = ifname("name");
      break;
    case Kind::AddrAdd:
    case Kind::AddrDel:
      op.dev = ifname("dev");
      op.address = ParseCidr(env, js::RequireString(o, "address", ctx), ctx + ".address", op.prefixLen);
      op.nodad = js::OptBool(o, "nodad", ctx);
      op.scope = ScopeArg(o, ctx);
      break;
    case Kind::RouteAdd:
    case Kind::RouteReplace:
    case Kind::RouteDel: {
      std::string dst = js::RequireString(o, "dst", ctx);
      op.family = FamilyArg(o, ctx);
      if (dst != "default") op.dst = ParseCidr(env, dst, ctx + ".dst", op.prefixLen);
      if (auto via = js::OptString(o, "via", ctx)) op.via = ParseIp(env, *via, ctx + ".via");
      if (!op.dst && !op.family) op.family = op.via ? op.via->family : AF_INET;
      if (auto d = js::OptString(o, "dev", ctx)) op.dev = CheckIfname(env, *d, ctx + ".dev");
      op.onlink = js::OptBool(o, "onlink", ctx);
      op.scope = ScopeArg(o, ctx);
      op.metric = js::OptU32(o, "metric", ctx);
      op.table = js::OptU32(o, "table", ctx);
      op.protocol = js::OptU32(o, "protocol", ctx);
      if (op.protocol && *op.protocol > 255) Fail(env, ctx + ".protocol must fit in 8 bits");
      op.routeType = RouteTypeArg(o, ctx);
      if (op.routeType && *op.routeType != RTN_UNICAST && (op.via || !op.dev.empty()))
        Fail(env, ctx + ".via and .dev are not allowed on a route of type " + js::RequireString(o, "type", ctx));
      break;
    }
    case Kind::NeighAdd:
    case Kind::NeighReplace:
    case Kind::NeighDel:
      op.dev = ifname("dev");
      op.address = ParseIp(env, js::RequireString(o, "address", ctx), ctx + ".address");
      op.mac = mac("lladdr");
      if (op.kind != Kind::NeighDel && !op.mac) Fail(env, ctx + ".lladdr is required");
      break;
    case Kind::FdbAdd:
    case Kind::FdbReplace:
    case Kind::FdbDel:
      op.dev = ifname("dev");
      op.mac = mac("lladdr");
      if (!op.mac) Fail(env, ctx + ".lladdr is required");
      if (auto d = js::OptString(o, "dst", ctx)) op.address = ParseIp(env, *d, ctx + ".dst");
      break;
    case Kind::SysctlWrite:
    case Kind::SysctlRead: {
      op.path = js::RequireString(o, "path", ctx);
      if (op.path.rfind("net/", 0) != 0 || op.path.find("..") != std::string::npos)
        Fail(env, ctx + ".path must be below net/ (e.g. net/ipv4/ip_forward)");
      if (op.kind == Kind::SysctlWrite) op.value = js::RequireString(o, "value", ctx);
      break;
    }
    default:
      op.family = FamilyArg(o, ctx);
  }
  return op;
}

std::string IpText(const IpAddr& ip) {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(ip.family, ip.bytes, buf, sizeof buf);
  return buf;
}

std::string MacText(const std::vector<uint8_t>& mac) {
  std::string s;
  char buf[4];
  for (size_t i = 0; i < mac.size(); i++) {
    snprintf(buf, sizeof buf, i ? ":%02x" : "%02x", mac[i]);
    s += buf;
  }
  return s;
}

Napi::Object LinkJs(Napi::Env env, const LinkInfo& l) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("index", l.index);
  o.Set("name", l.name);
  o.Set("kind", l.kind);
  o.Set("mtu", l.mtu);
  o.Set("flags", l.flags);
  o.Set("up", (l.flags & 1 /*IFF_UP*/) != 0);
  o.Set("operstate", l.operstate);
  o.Set("mac", MacText(l.mac));
  if (l.link) o.Set("link", l.link);
  if (l.master) o.Set("master", l.master);
  if (l.linkNetnsId >= 0) o.Set("linkNetnsId", l.linkNetnsId);
  if (l.vni || l.vxlanPort || l.vxlanLocal) {
    Napi::Object v = Napi::Object::New(env);
    if (l.vni) v.Set("vni", *l.vni);
    if (l.vxlanPort) v.Set("port", *l.vxlanPort);
    if (l.vxlanLocal) v.Set("local", IpText(*l.vxlanLocal));
    if (l.vxlanLink) v.Set("link", *l.vxlanLink);
    if (l.vxlanLearning) v.Set("learning", *l.vxlanLearning);
    o.Set("vxlan", v);
  }
  return o;
}

Napi::Object ResultJs(Napi::Env env, const Result& r) {
  Napi::Object o = Napi::Object::New(env);
  if (r.skipped) {
    o.Set("status", "skipped");
    return o;
  }
  if (r.err) {
    o.Set("status", "error");
    o.Set("errno", r.err);
    o.Set("code", ErrnoCode(r.err));
    o.Set("message", r.message);
    return o;
  }
  o.Set("status", "ok");
  auto array = [&](const char* key, size_t n, auto&& each) {
    Napi::Array a = Napi::Array::New(env, n);
    for (size_t i = 0; i < n; i++) a.Set(i, each(i));
    o.Set(key, a);
  };
  if (!r.links.empty()) array("links", r.links.size(), [&](size_t i) { return LinkJs(env, r.links[i]); });
  if (!r.addrs.empty()) array("addrs", r.addrs.size(), [&](size_t i) {
    const AddrInfo& a = r.addrs[i];
    Napi::Object x = Napi::Object::New(env);
    x.Set("dev", a.dev);
    x.Set("index", a.index);
    x.Set("family", a.address.family == AF_INET ? 4 : 6);
    x.Set("address", IpText(a.address));
    x.Set("prefixLen", a.prefixLen);
    x.Set("scope", a.scope);
    x.Set("flags", a.flags);
    return x;
  });
  if (!r.routes.empty()) array("routes", r.routes.size(), [&](size_t i) {
    const RouteInfo& rt = r.routes[i];
    Napi::Object x = Napi::Object::New(env);
    x.Set("family", rt.family == AF_INET ? 4 : 6);
    x.Set("dst", rt.dst ? IpText(*rt.dst) + "/" + std::to_string(rt.dstLen) : std::string("default"));
    if (rt.via) x.Set("via", IpText(*rt.via));
    if (!rt.dev.empty()) x.Set("dev", rt.dev);
    if (rt.prefsrc) x.Set("prefsrc", IpText(*rt.prefsrc));
    x.Set("table", rt.table);
    x.Set("protocol", rt.protocol);
    x.Set("scope", rt.scope);
    x.Set("type", rt.type);
    x.Set("onlink", (rt.flags & RTNH_F_ONLINK) != 0);
    if (rt.metric) x.Set("metric", *rt.metric);
    return x;
  });
  if (!r.neighs.empty()) array("neighs", r.neighs.size(), [&](size_t i) {
    const NeighInfo& n = r.neighs[i];
    Napi::Object x = Napi::Object::New(env);
    x.Set("dev", n.dev);
    x.Set("index", n.index);
    if (n.dst) x.Set("address", IpText(*n.dst));
    if (!n.lladdr.empty()) x.Set("lladdr", MacText(n.lladdr));
    x.Set("state", n.state);
    x.Set("flags", n.flags);
    if (n.master) x.Set("master", *n.master);
    return x;
  });
  if (r.value) o.Set("value", *r.value);
  return o;
}

}  // namespace

// netlinkBatch(netns: string | null, ops: object[], continueOnError?: boolean): Promise<Result[]>
Napi::Value NetlinkBatch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string netns = js::NetnsArg(info, 0);
  if (info.Length() < 2 || !info[1].IsArray()) Fail(env, "ops must be an array");
  Napi::Array arr = info[1].As<Napi::Array>();
  std::vector<Op> ops;
  ops.reserve(arr.Length());
  for (uint32_t i = 0; i < arr.Length(); i++) ops.push_back(ParseOp(env, arr.Get(i), i));
  bool continueOnError = info.Length() > 2 && info[2].IsBoolean() && info[2].As<Napi::Boolean>().Value();
  return AsyncTask<std::vector<Result>>::Start(
      env, "capstan.netlinkBatch",
      [netns, ops = std::move(ops), continueOnError]() {
        std::vector<Result> results;
        RunInNetns(netns, [&] { results = RunBatch(ops, continueOnError); });
        return results;
      },
      [](Napi::Env env, std::vector<Result>& results) -> Napi::Value {
        Napi::Array a = Napi::Array::New(env, results.size());
        for (size_t i = 0; i < results.size(); i++) a.Set(i, ResultJs(env, results[i]));
        return a;
      });
}

}  // namespace capstan
