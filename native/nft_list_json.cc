#include "nft_list_json.h"

#include <cstdio>

namespace capstan::nft {

namespace {

class Json {
 public:
  std::string out;

  void Hex(const std::vector<uint8_t>& b) {
    static const char* digits = "0123456789abcdef";
    out += '"';
    for (uint8_t c : b) {
      out += digits[c >> 4];
      out += digits[c & 15];
    }
    out += '"';
  }
  void Str(const std::string& s) {
    out += '"';
    for (char c : s) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += c;
      }
    }
    out += '"';
  }
  void Key(const char* k) {
    out += '"';
    out += k;
    out += "\":";
  }
  void Num(double v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%.17g", v);
    out += buf;
  }
  void KeyNum(const char* k, double v) {
    Key(k);
    Num(v);
    out += ',';
  }
  void KeyStr(const char* k, const std::string& s) {
    Key(k);
    Str(s);
    out += ',';
  }
  // Replaces a trailing comma with the closing bracket.
  void Close(char bracket) {
    if (out.back() == ',') out.back() = bracket;
    else out += bracket;
  }
};

void WriteExpr(Json& j, const Expr& e) {
  j.out += '{';
  j.KeyStr("type", e.name);
  for (const auto& [key, a] : e.attrs) {
    j.Key(key.c_str());
    switch (a.kind) {
      case AttrKind::Data: j.Hex(a.data); break;
      case AttrKind::Str: j.Str(a.str); break;
      case AttrKind::I32: j.Num(static_cast<int32_t>(a.num)); break;
      default: j.Num(static_cast<double>(a.num));
    }
    j.out += ',';
  }
  j.Close('}');
}

void WriteElement(Json& j, const Element& el) {
  j.out += "{\"key\":";
  j.Hex(el.key);
  j.out += ',';
  if (el.flags) j.KeyNum("flags", el.flags);
  if (el.verdict) j.KeyNum("verdict", *el.verdict);
  if (!el.chain.empty()) j.KeyStr("chain", el.chain);
  if (el.timeout) j.KeyNum("timeout", static_cast<double>(*el.timeout));
  if (el.expiration) j.KeyNum("expiration", static_cast<double>(*el.expiration));
  if (el.data) {
    j.Key("data");
    j.Hex(*el.data);
    j.out += ',';
  }
  j.Close('}');
}

}  // namespace

std::string TableJson(const TableState& st) {
  Json j;
  j.out.reserve(256 + st.rules.size() * 300);
  j.out += '{';
  j.KeyNum("family", st.family);
  j.KeyStr("name", st.name);
  j.KeyNum("flags", st.flags);
  j.out += "\"chains\":[";
  for (const ChainState& c : st.chains) {
    j.out += '{';
    j.KeyStr("name", c.name);
    j.KeyNum("handle", static_cast<double>(c.handle));
    if (c.hook) j.KeyNum("hook", *c.hook);
    if (c.priority) j.KeyNum("priority", *c.priority);
    if (!c.type.empty()) j.KeyStr("type", c.type);
    if (c.policy) j.KeyNum("policy", *c.policy);
    j.Close('}');
    j.out += ',';
  }
  j.Close(']');
  j.out += ",\"rules\":[";
  for (const RuleState& r : st.rules) {
    j.out += '{';
    j.KeyStr("chain", r.chain);
    j.KeyNum("handle", static_cast<double>(r.handle));
    if (!r.userdata.empty()) {
      j.Key("userdata");
      j.Hex(r.userdata);
      j.out += ',';
    }
    j.out += "\"exprs\":[";
    for (const Expr& e : r.exprs) {
      WriteExpr(j, e);
      j.out += ',';
    }
    j.Close(']');
    j.out += "},";
  }
  j.Close(']');
  j.out += ",\"sets\":[";
  for (const SetState& s : st.sets) {
    j.out += '{';
    j.KeyStr("name", s.name);
    j.KeyNum("handle", static_cast<double>(s.handle));
    j.KeyNum("flags", s.flags);
    j.KeyNum("keyType", s.keyType);
    j.KeyNum("keyLen", s.keyLen);
    if (s.dataType) j.KeyNum("dataType", *s.dataType);
    if (s.dataLen) j.KeyNum("dataLen", *s.dataLen);
    j.out += "\"elements\":[";
    for (const Element& el : s.elements) {
      WriteElement(j, el);
      j.out += ',';
    }
    j.Close(']');
    j.out += "},";
  }
  j.Close(']');
  j.out += '}';
  return j.out;
}

}  // namespace capstan::nft
