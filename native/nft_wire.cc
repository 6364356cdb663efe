#include "nft_wire.h"

#include <errno.h>

#include <cstring>
#include <string>

#include "nft_expr_attrs.h"
#include "op_error.h"

namespace capstan::nft {

namespace {

class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}

  [[noreturn]] void Fail(const std::string& what) const {
    throw OpError(EINVAL, "malformed nftables transaction: " + what, -1, "TypeError");
  }
  void Need(size_t n) const {
    if (static_cast<size_t>(end_ - p_) < n) Fail("truncated");
  }
  template <typename T>
  T Num() {
    Need(sizeof(T));
    T v;
    memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }
  uint8_t U8() { return Num<uint8_t>(); }
  uint32_t U32() { return Num<uint32_t>(); }
  std::vector<uint8_t> Bytes() {
    uint16_t n = Num<uint16_t>();
    Need(n);
    std::vector<uint8_t> v(p_, p_ + n);
    p_ += n;
    return v;
  }
  std::string Str() {
    uint16_t n = Num<uint16_t>();
    Need(n);
    std::string s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    if (s.find('\0') != std::string::npos) Fail("NUL in a name");
    return s;
  }
  std::string Name(const char* what) {
    std::string s = Str();
    if (s.empty() || s.size() > 255) Fail(std::string(what) + " must be 1..255 bytes");
    return s;
  }
  bool Done() const { return p_ == end_; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

Expr ReadExpr(Reader& r) {
  const auto& names = ExprNames();
  uint8_t idx = r.U8();
  if (idx >= names.size()) r.Fail("unknown expression index");
  Expr e;
  e.name = names[idx];
  const auto& specs = *AttrsOf(e.name);
  uint8_t count = r.U8();
  for (uint8_t i = 0; i < count; i++) {
    uint8_t ai = r.U8();
    if (ai >= specs.size()) r.Fail("unknown attribute of " + e.name);
    const AttrSpec& spec = specs[ai];
    ExprAttr a{spec.id, spec.kind};
    switch (spec.kind) {
      case AttrKind::U8: a.num = r.U8(); break;
      case AttrKind::U16: a.num = r.Num<uint16_t>(); break;
      case AttrKind::U32: a.num = r.U32(); break;
      case AttrKind::I32: a.num = static_cast<uint64_t>(static_cast<int64_t>(r.Num<int32_t>())); break;
      case AttrKind::U64: a.num = r.Num<uint64_t>(); break;
      case AttrKind::Data:
        a.data = r.Bytes();
        if (a.data.empty() || a.data.size() > 64) r.Fail(std::string(spec.key) + " must hold 1..64 bytes");
        break;
      case AttrKind::Str: a.str = r.Str(); break;
    }
    e.attrs.emplace_back(spec.key, std::move(a));
  }
  return e;
}

template <typename T>
std::optional<T> Opt(Reader& r) {
  if (!r.U8()) return std::nullopt;
  return r.Num<T>();
}

}  // namespace

std::vector<Op> DecodeOps(const uint8_t* data, size_t len) {
  Reader r(data, len);
  uint32_t count = r.U32();
  std::vector<Op> ops;
  ops.reserve(count);
  for (uint32_t i = 0; i < count; i++) {
    uint8_t kind = r.U8();
    if (kind > static_cast<uint8_t>(OpKind::DelElements)) r.Fail("unknown operation kind");
    Op op{static_cast<OpKind>(kind)};
    op.family = r.U32();
    op.table = r.Name("table");
    op.exclusive = r.U8() != 0;
    switch (op.kind) {
      case OpKind::AddTable: op.tableFlags = r.U32(); break;
      case OpKind::DelTable: break;
      case OpKind::AddChain:
        op.name = op.chain = r.Name("chain");
        if (r.U8()) {
          op.hook = r.U32();
          op.priority = r.Num<int32_t>();
          op.chainType = r.Name("chain type");
        }
        op.policy = Opt<uint32_t>(r);
        break;
      case OpKind::DelChain:
      case OpKind::FlushChain: op.name = op.chain = r.Name("chain"); break;
      case OpKind::AddRule: {
        op.chain = r.Name("chain");
        op.position = Opt<uint64_t>(r);
        auto ud = r.Bytes();
        if (!ud.empty()) op.userdata = std::move(ud);
        uint16_t n = r.Num<uint16_t>();
        op.exprs.reserve(n);
        for (uint16_t k = 0; k < n; k++) op.exprs.push_back(ReadExpr(r));
        break;
      }
      case OpKind::DelRule:
        op.chain = r.Name("chain");
        op.handle = r.Num<uint64_t>();
        break;
      case OpKind::AddSet:
        op.name = r.Name("set");
        op.setFlags = r.U32();
        op.keyType = r.U32();
        op.keyLen = r.U32();
        if (op.keyLen == 0 || op.keyLen > 64) r.Fail("keyLen must be 1..64");
        op.dataType = Opt<uint32_t>(r);
        op.dataLen = Opt<uint32_t>(r);
        op.size = Opt<uint32_t>(r);
        break;
      case OpKind::DelSet:
      case OpKind::FlushSet: op.name = r.Name("set"); break;
      case OpKind::AddElements:
      case OpKind::DelElements: {
        op.name = r.Name("set");
        uint32_t n = r.U32();
        op.elements.reserve(n);
        for (uint32_t k = 0; k < n; k++) {
          Element el;
          el.key = r.Bytes();
          if (el.key.empty() || el.key.size() > 64) r.Fail("element key must be 1..64 bytes");
          uint8_t has = r.U8();
          if (has & 1) el.data = r.Bytes();
          if (has & 2) el.verdict = r.Num<int32_t>();
          if (has & 4) el.chain = r.Name("verdict chain");
          if (has & 8) el.timeout = r.Num<uint64_t>();
          if (has & 16) el.expiration = r.Num<uint64_t>();
          el.flags = r.U32();
          op.elements.push_back(std::move(el));
        }
        break;
      }
    }
    ops.push_back(std::move(op));
  }
  if (!r.Done()) r.Fail("trailing bytes");
  return ops;
}

}  // namespace capstan::nft
