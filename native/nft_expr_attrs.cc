#include "nft_expr_attrs.h"

#include <map>

namespace capstan::nft {

namespace {
using K = AttrKind;
const std::map<std::string, std::vector<AttrSpec>>& Table() {
  static const std::map<std::string, std::vector<AttrSpec>> t = {
      {"payload", {{"dreg", NFTNL_EXPR_PAYLOAD_DREG, K::U32}, {"base", NFTNL_EXPR_PAYLOAD_BASE, K::U32},
                   {"offset", NFTNL_EXPR_PAYLOAD_OFFSET, K::U32}, {"len", NFTNL_EXPR_PAYLOAD_LEN, K::U32},
                   {"sreg", NFTNL_EXPR_PAYLOAD_SREG, K::U32}, {"csumType", NFTNL_EXPR_PAYLOAD_CSUM_TYPE, K::U32},
                   {"csumOffset", NFTNL_EXPR_PAYLOAD_CSUM_OFFSET, K::U32},
                   {"csumFlags", NFTNL_EXPR_PAYLOAD_FLAGS, K::U32}}},
      {"meta", {{"key", NFTNL_EXPR_META_KEY, K::U32}, {"dreg", NFTNL_EXPR_META_DREG, K::U32},
                {"sreg", NFTNL_EXPR_META_SREG, K::U32}}},
      {"cmp", {{"sreg", NFTNL_EXPR_CMP_SREG, K::U32}, {"op", NFTNL_EXPR_CMP_OP, K::U32},
               {"data", NFTNL_EXPR_CMP_DATA, K::Data}}},
      {"bitwise", {{"sreg", NFTNL_EXPR_BITWISE_SREG, K::U32}, {"dreg", NFTNL_EXPR_BITWISE_DREG, K::U32},
                   {"len", NFTNL_EXPR_BITWISE_LEN, K::U32}, {"mask", NFTNL_EXPR_BITWISE_MASK, K::Data},
                   {"xor", NFTNL_EXPR_BITWISE_XOR, K::Data}}},
      {"immediate", {{"dreg", NFTNL_EXPR_IMM_DREG, K::U32}, {"data", NFTNL_EXPR_IMM_DATA, K::Data},
                     {"verdict", NFTNL_EXPR_IMM_VERDICT, K::I32}, {"chain", NFTNL_EXPR_IMM_CHAIN, K::Str}}},
      {"lookup", {{"sreg", NFTNL_EXPR_LOOKUP_SREG, K::U32}, {"dreg", NFTNL_EXPR_LOOKUP_DREG, K::U32},
                  {"set", NFTNL_EXPR_LOOKUP_SET, K::Str}, {"flags", NFTNL_EXPR_LOOKUP_FLAGS, K::U32}}},
      {"ct", {{"dreg", NFTNL_EXPR_CT_DREG, K::U32}, {"key", NFTNL_EXPR_CT_KEY, K::U32},
              {"dir", NFTNL_EXPR_CT_DIR, K::U8}, {"sreg", NFTNL_EXPR_CT_SREG, K::U32}}},
      {"fib", {{"dreg", NFTNL_EXPR_FIB_DREG, K::U32}, {"result", NFTNL_EXPR_FIB_RESULT, K::U32},
               {"flags", NFTNL_EXPR_FIB_FLAGS, K::U32}}},
      {"numgen", {{"dreg", NFTNL_EXPR_NG_DREG, K::U32}, {"modulus", NFTNL_EXPR_NG_MODULUS, K::U32},
                  {"ngType", NFTNL_EXPR_NG_TYPE, K::U32}, {"offset", NFTNL_EXPR_NG_OFFSET, K::U32}}},
      {"counter", {{"packets", NFTNL_EXPR_CTR_PACKETS, K::U64}, {"bytes", NFTNL_EXPR_CTR_BYTES, K::U64}}},
      {"nat", {{"natType", NFTNL_EXPR_NAT_TYPE, K::U32}, {"family", NFTNL_EXPR_NAT_FAMILY, K::U32},
               {"regAddrMin", NFTNL_EXPR_NAT_REG_ADDR_MIN, K::U32},
               {"regAddrMax", NFTNL_EXPR_NAT_REG_ADDR_MAX, K::U32},
               {"regProtoMin", NFTNL_EXPR_NAT_REG_PROTO_MIN, K::U32},
               {"regProtoMax", NFTNL_EXPR_NAT_REG_PROTO_MAX, K::U32}, {"flags", NFTNL_EXPR_NAT_FLAGS, K::U32}}},
      {"masq", {{"flags", NFTNL_EXPR_MASQ_FLAGS, K::U32}, {"regProtoMin", NFTNL_EXPR_MASQ_REG_PROTO_MIN, K::U32},
                {"regProtoMax", NFTNL_EXPR_MASQ_REG_PROTO_MAX, K::U32}}},
      {"reject", {{"rejectType", NFTNL_EXPR_REJECT_TYPE, K::U32}, {"code", NFTNL_EXPR_REJECT_CODE, K::U8}}},
      {"range", {{"sreg", NFTNL_EXPR_RANGE_SREG, K::U32}, {"op", NFTNL_EXPR_RANGE_OP, K::U32},
                 {"from", NFTNL_EXPR_RANGE_FROM_DATA, K::Data}, {"to", NFTNL_EXPR_RANGE_TO_DATA, K::Data}}},
      {"log", {{"prefix", NFTNL_EXPR_LOG_PREFIX, K::Str}, {"group", NFTNL_EXPR_LOG_GROUP, K::U16}}},
      {"notrack", {}},
      // The service proxy's ClientIP affinity: `update @set { ip saddr }` (op 1 = update).
      {"dynset", {{"sregKey", NFTNL_EXPR_DYNSET_SREG_KEY, K::U32}, {"sregData", NFTNL_EXPR_DYNSET_SREG_DATA, K::U32},
                  {"dynsetOp", NFTNL_EXPR_DYNSET_OP, K::U32}, {"timeout", NFTNL_EXPR_DYNSET_TIMEOUT, K::U64},
                  {"set", NFTNL_EXPR_DYNSET_SET_NAME, K::Str}}},
  };
  return t;
}
}  // namespace

const std::vector<std::string>& ExprNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& [name, _] : Table()) v.push_back(name);
    return v;
  }();
  return names;
}

const std::vector<AttrSpec>* AttrsOf(const std::string& exprName) {
  auto it = Table().find(exprName);
  return it == Table().end() ? nullptr : &it->second;
}

nftnl_expr* BuildExpr(const Expr& e) {
  nftnl_expr* x = nftnl_expr_alloc(e.name.c_str());
  if (!x) return nullptr;
  for (const auto& [key, a] : e.attrs) {
    switch (a.kind) {
      case K::U8: nftnl_expr_set_u8(x, a.id, static_cast<uint8_t>(a.num)); break;
      case K::U16: nftnl_expr_set_u16(x, a.id, static_cast<uint16_t>(a.num)); break;
      case K::U32:
      case K::I32: nftnl_expr_set_u32(x, a.id, static_cast<uint32_t>(a.num)); break;
      case K::U64: nftnl_expr_set_u64(x, a.id, a.num); break;
      case K::Data: nftnl_expr_set(x, a.id, a.data.data(), static_cast<uint32_t>(a.data.size())); break;
      case K::Str: nftnl_expr_set_str(x, a.id, a.str.c_str()); break;
    }
  }
  return x;
}

Expr ReadExpr(nftnl_expr* x) {
  Expr e;
  e.name = nftnl_expr_get_str(x, NFTNL_EXPR_NAME);
  const auto* specs = AttrsOf(e.name);
  if (!specs) return e;
  for (const auto& s : *specs) {
    if (!nftnl_expr_is_set(x, s.id)) continue;
    ExprAttr a{s.id, s.kind};
    switch (s.kind) {
      case K::U8: a.num = nftnl_expr_get_u8(x, s.id); break;
      case K::U16: a.num = nftnl_expr_get_u16(x, s.id); break;
      case K::U32: a.num = nftnl_expr_get_u32(x, s.id); break;
      case K::I32: a.num = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(nftnl_expr_get_u32(x, s.id)))); break;
      case K::U64: a.num = nftnl_expr_get_u64(x, s.id); break;
      case K::Data: {
        uint32_t len = 0;
        auto* p = static_cast<const uint8_t*>(nftnl_expr_get(x, s.id, &len));
        if (p) a.data.assign(p, p + len);
        break;
      }
      case K::Str: a.str = nftnl_expr_get_str(x, s.id); break;
    }
    e.attrs.emplace_back(s.key, std::move(a));
  }
  return e;
}

}  // namespace capstan::nft
