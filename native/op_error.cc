#include "op_error.h"

#include <string.h>

namespace capstan {

std::string ErrnoCode(int err) {
  const char* name = strerrorname_np(err);
  return name ? std::string(name) : "E" + std::to_string(err);
}

std::string ErrnoMessage(int err) {
  char buf[256];
  return std::string(strerror_r(err, buf, sizeof buf));
}

Napi::Value OpError::ToJs(Napi::Env env) const {
  std::string text = message.empty() ? ErrnoMessage(err) : message;
  // Malformed input found off the JS thread still surfaces as the TypeError it is.
  if (kind == "TypeError") return Napi::TypeError::New(env, text).Value();
  Napi::Error e = Napi::Error::New(env, text);
  Napi::Object o = e.Value();
  o.Set("name", kind);
  o.Set("errno", err);
  o.Set("code", ErrnoCode(err));
  if (index >= 0) o.Set("index", static_cast<double>(index));
  return o;
}

}  // namespace capstan
