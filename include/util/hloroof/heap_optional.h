// HeapOptional<T>: an optional whose value lives on the heap, for a part of a record that few
// records have (an op's collective): each record then holds a pointer, not a whole T. Used as
// std::optional is (test it, `*`, `->`, assign a T or std::nullopt); copies copy the value.
#ifndef HLOROOF_HEAP_OPTIONAL_H_
#define HLOROOF_HEAP_OPTIONAL_H_

#include <memory>
#include <optional>
#include <utility>

namespace hloroof {

template <typename T>
class HeapOptional {
 public:
  HeapOptional() = default;
  // Implicit, as std::optional's.
  HeapOptional(std::nullopt_t) {}
  HeapOptional(const T& value) : value_(std::make_unique<T>(value)) {}
  HeapOptional(T&& value) : value_(std::make_unique<T>(std::move(value))) {}
  HeapOptional(const HeapOptional& other)
      : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
  HeapOptional(HeapOptional&&) noexcept = default;
  HeapOptional& operator=(const HeapOptional& other) {
    if (this != &other) value_ = other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
    return *this;
  }
  HeapOptional& operator=(HeapOptional&&) noexcept = default;
  HeapOptional& operator=(std::nullopt_t) {
    value_.reset();
    return *this;
  }
  HeapOptional& operator=(const T& value) {
    emplace(value);
    return *this;
  }
  HeapOptional& operator=(T&& value) {
    emplace(std::move(value));
    return *this;
  }
  ~HeapOptional() = default;

  template <typename... Args>
  T& emplace(Args&&... args) {
    value_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *value_;
  }
  void reset() { value_.reset(); }

  bool has_value() const { return value_ != nullptr; }
  explicit operator bool() const { return value_ != nullptr; }
  // The value; null when there is none.
  const T* get() const { return value_.get(); }
  T* get() { return value_.get(); }
  // As std::optional's: only when there is a value.
  const T& operator*() const { return *value_; }
  T& operator*() { return *value_; }
  const T* operator->() const { return value_.get(); }
  T* operator->() { return value_.get(); }

 private:
  std::unique_ptr<T> value_;
};

}  // namespace hloroof

#endif  // HLOROOF_HEAP_OPTIONAL_H_
