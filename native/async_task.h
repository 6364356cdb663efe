// A promise-returning task: Execute() runs `work` on a libuv pool thread and never touches
// JS values; `toJs` converts the plain C++ result on the JS thread.
#pragma once
#include <napi.h>
#include <functional>
#include <memory>

#include "op_error.h"

namespace capstan {

template <typename Result>
class AsyncTask : public Napi::AsyncWorker {
 public:
  using Work = std::function<Result()>;
  using ToJs = std::function<Napi::Value(Napi::Env, Result&)>;

  static Napi::Promise Start(Napi::Env env, const char* name, Work work, ToJs toJs) {
    auto* task = new AsyncTask(env, name, std::move(work), std::move(toJs));
    auto promise = task->deferred_.Promise();
    task->Queue();
    return promise;
  }

 protected:
  void Execute() override {
    try {
      result_ = work_();
    } catch (const OpError& e) {
      failure_ = e;
      failed_ = true;
    } catch (const std::exception& e) {
      failure_ = OpError(EIO, e.what());
      failed_ = true;
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    if (failed_) {
      deferred_.Reject(failure_.ToJs(env));
      return;
    }
    deferred_.Resolve(toJs_(env, result_));
  }

  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  AsyncTask(Napi::Env env, const char* name, Work work, ToJs toJs)
      : Napi::AsyncWorker(env, name), deferred_(Napi::Promise::Deferred::New(env)),
        work_(std::move(work)), toJs_(std::move(toJs)) {}

  Napi::Promise::Deferred deferred_;
  Work work_;
  ToJs toJs_;
  Result result_{};
  OpError failure_;
  bool failed_ = false;
};

}  // namespace capstan
