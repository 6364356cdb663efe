// A failure that carries the kernel's errno across the thread boundary; it becomes a JS
// Error with `errno`, `code` and (for batches) `index` on the JS thread.
#pragma once
#include <napi.h>
#include <string>

namespace capstan {

struct OpError {
  int err = 0;
  std::string message;
  long index = -1;  // which operation of a batch failed, -1 when not applicable
  std::string kind = "NativeError";

  OpError() = default;
  OpError(int e, std::string msg, long idx = -1, std::string k = "NativeError")
      : err(e), message(std::move(msg)), index(idx), kind(std::move(k)) {}

  Napi::Value ToJs(Napi::Env env) const;
};

// "EEXIST" for EEXIST; "E<number>" if the C library has no name for it.
std::string ErrnoCode(int err);
std::string ErrnoMessage(int err);

}  // namespace capstan
