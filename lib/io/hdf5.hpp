// A thin RAII wrapper over the HDF5 C API: only what fedbench's files need (groups, scalar
// attributes, extendible 1-D datasets). H5Cpp is retired in HDF5 2.0 and HighFive is not in
// Debian 12 (design.md), so this is ours. Every failure becomes a UserError naming the file.
#pragma once
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "io/directory.hpp"

namespace fedbench::io::h5 {

//! Owns one hid_t and closes it with the matching H5?close.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer close) : id_(id), close_(close) {}
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), close_(o.close_) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
      close_ = o.close_;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }

  hid_t id() const { return id_; }
  //! Gives up ownership (to close it by hand and check the result).
  hid_t release() { return std::exchange(id_, H5I_INVALID_HID); }
  explicit operator bool() const { return id_ >= 0; }
  void reset() {
    if (id_ >= 0 && close_) close_(id_);
    id_ = H5I_INVALID_HID;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer close_ = nullptr;
};

using AttributeValue = std::variant<std::string, std::int64_t, double>;

//! Turns off HDF5's own error printing (we report errors ourselves); idempotent.
void silence_errors();

//! A new file (O_EXCL: never through a link planted under its name; a regular file left there
//! by a stopped write is replaced).
Handle create_file(const std::string& path);
//! The same, NAME in an open directory (the writer keeps the directory for the rename).
Handle create_file(const Directory& dir, const std::string& name);
//! The checksum HDF5 puts on its version 2 and later metadata, the superblock included
//! (Jenkins' lookup3), of `length` bytes.
std::uint32_t metadata_checksum(const unsigned char* data, std::size_t length);
//! Opens a file fedbench wrote, read-only. Its superblock is checked first (HDF5 signature
//! at offset 0, superblock version 2 or 3 and its checksum, 8-byte offsets and lengths, base
//! address 0, end of file at the file's size) and so are its global heaps, the one kind of
//! metadata without a checksum: other, crafted and truncated files end in a one-line
//! UserError naming the file before libhdf5 parses anything.
Handle open_file_readonly(const std::string& path);
Handle create_group(hid_t parent, const std::string& name);
Handle open_group(hid_t parent, const std::string& name);
bool has_link(hid_t parent, const std::string& name);
//! Names of the links in a group, in creation-independent (name) order.
std::vector<std::string> list_links(hid_t group);

void write_attribute(hid_t obj, const std::string& name, const std::string& value);
void write_attribute(hid_t obj, const std::string& name, std::int64_t value);
//! A 1-D integer array attribute (a matrix's shape).
void write_attribute(hid_t obj, const std::string& name, const std::vector<std::int64_t>& values);
void write_attribute(hid_t obj, const std::string& name, std::uint64_t value);
void write_attribute(hid_t obj, const std::string& name, double value);
bool has_attribute(hid_t obj, const std::string& name);
//! One value (text, integer or real); an array or another type is a UserError.
AttributeValue read_attribute(hid_t obj, const std::string& name);
std::vector<std::string> list_attributes(hid_t obj);

enum class ElementType { int64, float64 };

//! An extendible, chunked 1-D dataset that grows by appends.
class Column {
 public:
  Column(hid_t group, const std::string& name, ElementType type, hsize_t chunk);
  void append(const std::int64_t* values, std::size_t n);
  void append(const double* values, std::size_t n);
  hid_t id() const { return dataset_.id(); }

 private:
  void append_raw(hid_t memory_type, const void* values, std::size_t n);
  Handle dataset_;
  std::string name_;
  hsize_t size_ = 0;
};

//! Writes a fixed-size 1-D dataset (per-client totals, ...).
void write_vector(hid_t group, const std::string& name, const std::vector<std::int64_t>& v);
//! Writes a rows x cols int64 dataset (row-major input).
void write_matrix(hid_t group, const std::string& name, const std::vector<std::int64_t>& v,
                  hsize_t rows, hsize_t cols);
void write_vector(hid_t group, const std::string& name, const std::vector<double>& v);
//! Writes a rows x cols float64 dataset (row-major input).
void write_matrix(hid_t group, const std::string& name, const std::vector<double>& v,
                  hsize_t rows, hsize_t cols);
//! Makes `dataset` a dimension scale named `name` and attaches it to dimension 0 of each of
//! `datasets` (netCDF and xarray readers then see a named dimension instead of phony_dim_N).
void attach_dimension_scale(hid_t scale, const std::string& name, const std::vector<hid_t>& datasets);
//! "1.10.8": the HDF5 library this binary runs with.
std::string library_version();

//! Reads a 1-D dataset of plain numbers, converted to double. Refuses, before allocating, one
//! with more than `max_length` values, another number type, or storage fedbench does not
//! write (external or virtual data, filters other than deflate, huge chunks).
std::vector<double> read_vector(hid_t group, const std::string& name,
                                hsize_t max_length = ~hsize_t{0});

}  // namespace fedbench::io::h5
