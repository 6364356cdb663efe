// JS <-> C++ for nftables: transaction parsing (TypeErrors) and table read-back objects.
#include <errno.h>

#include <cstring>
#include <map>

#include "addon.h"
#include "async_task.h"
#include "js_args.h"
#include "netns_thread.h"
#include "nft_expr_attrs.h"
#include "nft_ops.h"
#include "nft_wire.h"
#include "nft_list_json.h"

namespace capstan {

using namespace nft;

namespace {

[[noreturn]] void Fail(Napi::Env env, const std::string& msg) { throw Napi::TypeError::New(env, msg); }

std::string CheckName(Napi::Env env, const std::string& s, const std::string& ctx) {
  if (s.empty() || s.size() > 255) Fail(env, ctx + " must be a non-empty name of at most 255 bytes");
  return s;
}

// The object form is for small transactions (big ones use the binary form), so it can
// afford to reject attributes the expression does not have.
Expr ParseExpr(Napi::Env env, Napi::Value v, const std::string& ctx) {
  if (!v.IsObject() || v.IsArray()) Fail(env, ctx + " must be an object");
  Napi::Object o = v.As<Napi::Object>();
  Expr e;
  Napi::Value type = o.Get("type");
  if (!type.IsString()) Fail(env, ctx + ".type must be a string");
  e.name = type.As<Napi::String>().Utf8Value();
  const auto* specs = AttrsOf(e.name);
  if (!specs) Fail(env, ctx + ".type is not a supported expression: " + e.name);
  for (const auto& spec : *specs) {
    Napi::Value x = o.Get(spec.key);
    if (x.IsUndefined()) continue;
    ExprAttr a{spec.id, spec.kind};
    std::string key = spec.key;
    switch (spec.kind) {
      case AttrKind::Data: {
        if (!x.IsTypedArray() || x.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
          Fail(env, ctx + "." + key + " must be a Uint8Array");
        auto arr = x.As<Napi::Uint8Array>();
        if (arr.ByteLength() == 0 || arr.ByteLength() > 64) Fail(env, ctx + "." + key + " must hold 1..64 bytes");
        a.data.assign(arr.Data(), arr.Data() + arr.ByteLength());
        break;
      }
      case AttrKind::Str:
        if (!x.IsString()) Fail(env, ctx + "." + key + " must be a string");
        a.str = x.As<Napi::String>().Utf8Value();
        break;
      default: {
        if (!x.IsNumber()) Fail(env, ctx + "." + key + " must be an integer");
        double d = x.As<Napi::Number>().DoubleValue();
        if (d != static_cast<double>(static_cast<int64_t>(d))) Fail(env, ctx + "." + key + " must be an integer");
        int64_t n = static_cast<int64_t>(d);
        if (spec.kind == AttrKind::I32) {
          if (n < INT32_MIN || n > INT32_MAX) Fail(env, ctx + "." + key + " must be a 32-bit integer");
        } else {
          uint64_t max = spec.kind == AttrKind::U8 ? 0xff : spec.kind == AttrKind::U16 ? 0xffff
                       : spec.kind == AttrKind::U32 ? 0xffffffffULL : UINT64_MAX;
          if (n < 0 || static_cast<uint64_t>(n) > max) Fail(env, ctx + "." + key + " is out of range");
        }
        a.num = static_cast<uint64_t>(n);
      }
    }
    e.attrs.emplace_back(spec.key, std::move(a));
  }
  Napi::Array keys = o.GetPropertyNames();
  for (uint32_t k = 0; k < keys.Length(); k++) {
    std::string key = keys.Get(k).As<Napi::String>().Utf8Value();
    bool known = key == "type";
    for (const auto& spec : *specs) known = known || key == spec.key;
    if (!known) Fail(env, ctx + "." + key + " is not an attribute of " + e.name);
  }
  return e;
}

Element ParseElement(Napi::Env env, Napi::Value v, const std::string& ctx) {
  Napi::Object o = js::RequireObject(env, v, ctx);
  Element el;
  auto key = js::OptBytes(o, "key", ctx);
  if (!key || key->empty() || key->size() > 64) Fail(env, ctx + ".key must be a Uint8Array of 1..64 bytes");
  el.key = std::move(*key);
  el.data = js::OptBytes(o, "data", ctx);
  if (auto verdict = js::OptI64(o, "verdict", ctx)) el.verdict = static_cast<int32_t>(*verdict);
  el.chain = js::OptString(o, "chain", ctx).value_or("");
  el.flags = js::OptU32(o, "flags", ctx).value_or(0);
  if (auto t = js::OptI64(o, "timeout", ctx)) el.timeout = static_cast<uint64_t>(*t);
  if (auto x = js::OptI64(o, "expiration", ctx)) el.expiration = static_cast<uint64_t>(*x);
  return el;
}

const std::map<std::string, OpKind>& OpNames() {
  static const std::map<std::string, OpKind> m = {
      {"addTable", OpKind::AddTable}, {"delTable", OpKind::DelTable}, {"addChain", OpKind::AddChain},
      {"delChain", OpKind::DelChain}, {"flushChain", OpKind::FlushChain}, {"addRule", OpKind::AddRule},
      {"delRule", OpKind::DelRule}, {"addSet", OpKind::AddSet}, {"delSet", OpKind::DelSet},
      {"flushSet", OpKind::FlushSet}, {"addElements", OpKind::AddElements},
      {"delElements", OpKind::DelElements}};
  return m;
}

Op ParseOp(Napi::Env env, Napi::Value v, size_t i) {
  std::string ctx = "ops[" + std::to_string(i) + "]";
  Napi::Object o = js::RequireObject(env, v, ctx);
  std::string name = js::RequireString(o, "op", ctx);
  auto it = OpNames().find(name);
  if (it == OpNames().end()) Fail(env, ctx + ".op is not a known operation: " + name);
  Op op{it->second};
  ctx += " (" + name + ")";
  op.family = js::RequireU32(o, "family", ctx);
  op.table = CheckName(env, js::RequireString(o, "table", ctx), ctx + ".table");
  op.exclusive = js::OptBool(o, "exclusive", ctx).value_or(false);
  switch (op.kind) {
    case OpKind::AddTable:
      op.tableFlags = js::OptU32(o, "flags", ctx).value_or(0);
      break;
    case OpKind::DelTable:
      break;
    case OpKind::AddChain:
      op.chainType = js::OptString(o, "type", ctx);
      op.hook = js::OptU32(o, "hook", ctx);
      if (auto p = js::OptI64(o, "priority", ctx)) op.priority = static_cast<int32_t>(*p);
      op.policy = js::OptU32(o, "policy", ctx);
      [[fallthrough]];
    case OpKind::DelChain:
    case OpKind::FlushChain:
      op.name = CheckName(env, js::RequireString(o, "chain", ctx), ctx + ".chain");
      op.chain = op.name;
      break;
    case OpKind::AddRule:
    case OpKind::DelRule: {
      op.chain = CheckName(env, js::RequireString(o, "chain", ctx), ctx + ".chain");
      if (op.kind == OpKind::DelRule) {
        auto h = js::OptI64(o, "handle", ctx);
        if (!h) Fail(env, ctx + ".handle is required");
        op.handle = static_cast<uint64_t>(*h);
        break;
      }
      if (auto p = js::OptI64(o, "position", ctx)) op.position = static_cast<uint64_t>(*p);
      op.userdata = js::OptBytes(o, "userdata", ctx);
      Napi::Array exprs = js::RequireArray(o, "exprs", ctx);
      for (uint32_t k = 0; k < exprs.Length(); k++)
        op.exprs.push_back(ParseExpr(env, exprs.Get(k), ctx + ".exprs[" + std::to_string(k) + "]"));
      break;
    }
    case OpKind::AddSet:
      op.setFlags = js::OptU32(o, "flags", ctx).value_or(0);
      op.keyType = js::RequireU32(o, "keyType", ctx);
      op.keyLen = js::RequireU32(o, "keyLen", ctx);
      if (op.keyLen == 0 || op.keyLen > 64) Fail(env, ctx + ".keyLen must be 1..64");
      op.dataType = js::OptU32(o, "dataType", ctx);
      op.dataLen = js::OptU32(o, "dataLen", ctx);
      op.size = js::OptU32(o, "size", ctx);
      [[fallthrough]];
    case OpKind::DelSet:
    case OpKind::FlushSet:
      op.name = CheckName(env, js::RequireString(o, "set", ctx), ctx + ".set");
      break;
    case OpKind::AddElements:
    case OpKind::DelElements: {
      op.name = CheckName(env, js::RequireString(o, "set", ctx), ctx + ".set");
      Napi::Array els = js::RequireArray(o, "elements", ctx);
      op.elements.reserve(els.Length());
      for (uint32_t k = 0; k < els.Length(); k++)
        op.elements.push_back(ParseElement(env, els.Get(k), ctx + ".elements[" + std::to_string(k) + "]"));
      break;
    }
  }
  return op;
}

}  // namespace

// nftApply(netns: string | null, ops: object[] | Uint8Array): Promise<{ operations: number }>
// Objects are parsed here on the JS thread (convenient for small transactions); the binary
// form (nft_wire.h) is copied and decoded on the worker, which is what big syncs use.
Napi::Value NftApply(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string netns = js::NetnsArg(info, 0);
  auto ops = std::make_shared<std::vector<Op>>();
  auto wire = std::make_shared<std::vector<uint8_t>>();
  if (info.Length() >= 2 && info[1].IsTypedArray() && info[1].As<Napi::TypedArray>().TypedArrayType() == napi_uint8_array) {
    auto buf = info[1].As<Napi::Uint8Array>();
    wire->assign(buf.Data(), buf.Data() + buf.ByteLength());
  } else {
    if (info.Length() < 2 || !info[1].IsArray()) Fail(env, "ops must be an array or a Uint8Array");
    Napi::Array arr = info[1].As<Napi::Array>();
    ops->reserve(arr.Length());
    for (uint32_t i = 0; i < arr.Length(); i++) ops->push_back(ParseOp(env, arr.Get(i), i));
  }
  struct Applied {
    size_t operations = 0;
    uint32_t generationBefore = 0;
  };
  return AsyncTask<Applied>::Start(
      env, "capstan.nftApply",
      [netns, ops, wire]() {
        if (!wire->empty()) *ops = DecodeOps(wire->data(), wire->size());
        Applied a;
        // The generation just before the commit, so callers know which one the commit made:
        // the batch names it, and the kernel refuses it (ERESTART) if anyone else committed
        // in between; then it is read again and the batch sent again.
        RunInNetns(netns, [&] {
          for (int attempt = 0;; attempt++) {
            a.generationBefore = Generation();
            try {
              Apply(*ops, a.generationBefore);
              return;
            } catch (const OpError& e) {
              if (e.err != ERESTART || attempt >= 20) throw;
            }
          }
        });
        a.operations = ops->size();
        return a;
      },
      [](Napi::Env env, Applied& a) -> Napi::Value {
        Napi::Object o = Napi::Object::New(env);
        o.Set("operations", static_cast<double>(a.operations));
        o.Set("generationBefore", static_cast<double>(a.generationBefore));
        return o;
      });
}

// nftSchema(): the expression names and attribute order the binary form refers to.
Napi::Value NftSchema(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Array exprs = Napi::Array::New(env);
  uint32_t i = 0;
  for (const std::string& name : ExprNames()) {
    Napi::Object e = Napi::Object::New(env);
    e.Set("name", name);
    Napi::Array attrs = Napi::Array::New(env);
    uint32_t k = 0;
    static const char* kinds[] = {"u8", "u16", "u32", "i32", "u64", "data", "str"};
    for (const AttrSpec& spec : *AttrsOf(name)) {
      Napi::Object a = Napi::Object::New(env);
      a.Set("key", spec.key);
      a.Set("kind", kinds[static_cast<int>(spec.kind)]);
      attrs.Set(k++, a);
    }
    e.Set("attrs", attrs);
    exprs.Set(i++, e);
  }
  Napi::Array ops = Napi::Array::New(env);
  const char* opNames[] = {"addTable", "delTable", "addChain", "delChain", "flushChain", "addRule",
                           "delRule", "addSet", "delSet", "flushSet", "addElements", "delElements"};
  for (uint32_t k = 0; k < 12; k++) ops.Set(k, opNames[k]);
  Napi::Object o = Napi::Object::New(env);
  o.Set("exprs", exprs);
  o.Set("ops", ops);
  return o;
}

// nftList(netns: string | null, family: number, table: string, columns?: boolean)
//   → Promise<string>, or with `columns` Promise<{ json: string, sets: Columns[] }>
// Resolves with the table as JSON (see nft_list_json.h), serialised on the worker thread.
// With `columns`, the JSON's sets have no elements; sets[i] holds the elements of the JSON's
// i-th set as { count, keys: Buffer, data?: Buffer, verdicts?: Int32Array, chains?: string[],
// timeouts: Float64Array, expires: Float64Array } (ms, -1 for none).
Napi::Value NftList(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string netns = js::NetnsArg(info, 0);
  if (info.Length() < 3 || !info[1].IsNumber() || !info[2].IsString())
    Fail(env, "nftList(netns, family: number, table: string, columns?: boolean)");
  uint32_t family = info[1].As<Napi::Number>().Uint32Value();
  std::string table = CheckName(env, info[2].As<Napi::String>().Utf8Value(), "table");
  bool columns = info.Length() > 3 && info[3].IsBoolean() && info[3].As<Napi::Boolean>().Value();
  struct Listed {
    std::string json;
    std::vector<ElementColumns> sets;
  };
  return AsyncTask<Listed>::Start(
      env, "capstan.nftList",
      [netns, family, table, columns]() {
        Listed out;
        RunInNetns(netns, [&] {
          TableState st = List(family, table, columns);
          out.json = TableJson(st);
          if (columns)
            for (SetState& s : st.sets) out.sets.push_back(std::move(s.columns));
        });
        return out;
      },
      [columns](Napi::Env env, Listed& l) -> Napi::Value {
        if (!columns) return Napi::String::New(env, l.json);
        Napi::Array sets = Napi::Array::New(env, l.sets.size());
        for (uint32_t i = 0; i < l.sets.size(); i++) {
          ElementColumns& c = l.sets[i];
          Napi::Object o = Napi::Object::New(env);
          o.Set("count", c.count);
          o.Set("keys", Napi::Buffer<uint8_t>::Copy(env, c.keys.data(), c.keys.size()));
          if (!c.data.empty()) o.Set("data", Napi::Buffer<uint8_t>::Copy(env, c.data.data(), c.data.size()));
          if (!c.verdicts.empty()) {
            auto v = Napi::Int32Array::New(env, c.verdicts.size());
            memcpy(v.Data(), c.verdicts.data(), c.verdicts.size() * sizeof(int32_t));
            o.Set("verdicts", v);
            Napi::Array chains = Napi::Array::New(env, c.chains.size());
            for (uint32_t k = 0; k < c.chains.size(); k++) chains.Set(k, c.chains[k]);
            o.Set("chains", chains);
          }
          auto doubles = [&](const std::vector<double>& xs) {
            auto a = Napi::Float64Array::New(env, xs.size());
            memcpy(a.Data(), xs.data(), xs.size() * sizeof(double));
            return a;
          };
          o.Set("timeouts", doubles(c.timeouts));
          o.Set("expires", doubles(c.expires));
          sets.Set(i, o);
        }
        Napi::Object r = Napi::Object::New(env);
        r.Set("json", l.json);
        r.Set("sets", sets);
        return r;
      });
}

// nftGeneration(netns: string | null): Promise<number>
Napi::Value NftGeneration(const Napi::CallbackInfo& info) {
  std::string netns = js::NetnsArg(info, 0);
  return AsyncTask<uint32_t>::Start(
      info.Env(), "capstan.nftGeneration",
      [netns]() {
        uint32_t id = 0;
        RunInNetns(netns, [&] { id = Generation(); });
        return id;
      },
      [](Napi::Env env, uint32_t& id) -> Napi::Value { return Napi::Number::New(env, id); });
}

}  // namespace capstan
