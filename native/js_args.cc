#include "js_args.h"

#include <cmath>

namespace capstan::js {

namespace {
[[noreturn]] void Fail(Napi::Env env, const std::string& msg) {
  throw Napi::TypeError::New(env, msg);
}
bool Absent(const Napi::Value& v) { return v.IsUndefined() || v.IsNull(); }
}  // namespace

Napi::Object RequireObject(Napi::Env env, Napi::Value v, const std::string& what) {
  if (!v.IsObject() || v.IsArray()) Fail(env, what + " must be an object");
  return v.As<Napi::Object>();
}

std::optional<std::string> OptString(const Napi::Object& o, const char* key, const std::string& ctx) {
  Napi::Value v = o.Get(key);
  if (Absent(v)) return std::nullopt;
  if (!v.IsString()) Fail(o.Env(), ctx + "." + key + " must be a string");
  std::string s = v.As<Napi::String>().Utf8Value();
  if (s.find('\0') != std::string::npos) Fail(o.Env(), ctx + "." + key + " must not contain NUL");
  return s;
}

std::string RequireString(const Napi::Object& o, const char* key, const std::string& ctx) {
  auto s = OptString(o, key, ctx);
  if (!s) Fail(o.Env(), ctx + "." + key + " is required");
  return *s;
}

std::optional<int64_t> OptI64(const Napi::Object& o, const char* key, const std::string& ctx) {
  Napi::Value v = o.Get(key);
  if (Absent(v)) return std::nullopt;
  if (v.IsBigInt()) {
    bool lossless = true;
    return v.As<Napi::BigInt>().Int64Value(&lossless);
  }
  if (!v.IsNumber()) Fail(o.Env(), ctx + "." + key + " must be an integer");
  double d = v.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(d) || std::floor(d) != d) Fail(o.Env(), ctx + "." + key + " must be an integer");
  return static_cast<int64_t>(d);
}

std::optional<uint32_t> OptU32(const Napi::Object& o, const char* key, const std::string& ctx) {
  auto v = OptI64(o, key, ctx);
  if (!v) return std::nullopt;
  if (*v < 0 || *v > 0xffffffffLL) Fail(o.Env(), ctx + "." + key + " must be a 32-bit unsigned integer");
  return static_cast<uint32_t>(*v);
}

uint32_t RequireU32(const Napi::Object& o, const char* key, const std::string& ctx) {
  auto v = OptU32(o, key, ctx);
  if (!v) Fail(o.Env(), ctx + "." + key + " is required");
  return *v;
}

std::optional<bool> OptBool(const Napi::Object& o, const char* key, const std::string& ctx) {
  Napi::Value v = o.Get(key);
  if (Absent(v)) return std::nullopt;
  if (!v.IsBoolean()) Fail(o.Env(), ctx + "." + key + " must be a boolean");
  return v.As<Napi::Boolean>().Value();
}

std::optional<std::vector<uint8_t>> OptBytes(const Napi::Object& o, const char* key, const std::string& ctx) {
  Napi::Value v = o.Get(key);
  if (Absent(v)) return std::nullopt;
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
    Fail(o.Env(), ctx + "." + key + " must be a Uint8Array");
  auto a = v.As<Napi::Uint8Array>();
  return std::vector<uint8_t>(a.Data(), a.Data() + a.ByteLength());
}

Napi::Array RequireArray(const Napi::Object& o, const char* key, const std::string& ctx) {
  Napi::Value v = o.Get(key);
  if (!v.IsArray()) Fail(o.Env(), ctx + "." + key + " must be an array");
  return v.As<Napi::Array>();
}

std::string NetnsArg(const Napi::CallbackInfo& info, size_t i) {
  if (info.Length() <= i || Absent(info[i])) return "";
  if (!info[i].IsString()) Fail(info.Env(), "netns must be a path string or null");
  std::string s = info[i].As<Napi::String>().Utf8Value();
  if (!s.empty() && s[0] != '/') Fail(info.Env(), "netns must be an absolute path");
  return s;
}

}  // namespace capstan::js
