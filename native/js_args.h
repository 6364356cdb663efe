// Reading plain JS objects into C++ on the JS thread. Every accessor throws a
// Napi::TypeError naming the offending field, so bad input never reaches the kernel.
#pragma once
#include <napi.h>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace capstan::js {

Napi::Object RequireObject(Napi::Env env, Napi::Value v, const std::string& what);
std::string RequireString(const Napi::Object& o, const char* key, const std::string& ctx);
std::optional<std::string> OptString(const Napi::Object& o, const char* key, const std::string& ctx);
uint32_t RequireU32(const Napi::Object& o, const char* key, const std::string& ctx);
std::optional<uint32_t> OptU32(const Napi::Object& o, const char* key, const std::string& ctx);
std::optional<int64_t> OptI64(const Napi::Object& o, const char* key, const std::string& ctx);
std::optional<bool> OptBool(const Napi::Object& o, const char* key, const std::string& ctx);
std::optional<std::vector<uint8_t>> OptBytes(const Napi::Object& o, const char* key, const std::string& ctx);
Napi::Array RequireArray(const Napi::Object& o, const char* key, const std::string& ctx);
// A namespace path argument: undefined/null/"" mean "the caller's own namespace".
std::string NetnsArg(const Napi::CallbackInfo& info, size_t i);

}  // namespace capstan::js
