#include "io/hdf5.hpp"

#include <filesystem>
#include <mutex>

#include <hdf5_hl.h>

#include "core/error.hpp"

namespace fedbench::io::h5 {

namespace {

std::string object_name(hid_t obj) {
  char buf[512];
  const ssize_t n = H5Iget_name(obj, buf, sizeof buf);
  std::string file_buf(512, '\0');
  const ssize_t f = H5Fget_name(obj, file_buf.data(), file_buf.size());
  file_buf.resize(f > 0 ? static_cast<std::size_t>(f) : 0);
  return file_buf + ":" + (n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "?");
}

[[noreturn]] void fail(const std::string& what) { throw UserError(what); }

hid_t check(hid_t id, const std::string& what) {
  if (id < 0) fail(what);
  return id;
}

void check_status(herr_t status, const std::string& what) {
  if (status < 0) fail(what);
}

Handle scalar_space() { return Handle(H5Screate(H5S_SCALAR), H5Sclose); }

Handle string_type() {
  Handle t(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(t.id(), H5T_VARIABLE);
  H5Tset_cset(t.id(), H5T_CSET_UTF8);
  return t;
}

void write_numeric_attribute(hid_t obj, const std::string& name, hid_t file_type,
                             hid_t memory_type, const void* value) {
  if (H5Aexists(obj, name.c_str()) > 0) H5Adelete(obj, name.c_str());
  Handle space = scalar_space();
  Handle attr(check(H5Acreate2(obj, name.c_str(), file_type, space.id(), H5P_DEFAULT, H5P_DEFAULT),
                    "cannot write attribute " + name + " of " + object_name(obj)),
              H5Aclose);
  check_status(H5Awrite(attr.id(), memory_type, value), "cannot write attribute " + name);
}

}  // namespace

void silence_errors() {
  static std::once_flag once;
  std::call_once(once, [] { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); });
}

Handle create_file(const std::string& path) {
  silence_errors();
  // The 1.10 file format indexes extendible datasets compactly (extensible arrays instead of
  // v1 B-trees): a 30-column run file shrinks from ~60 kB to a few kB. h5py reads it.
  Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_libver_bounds(fapl.id(), H5F_LIBVER_V110, H5F_LIBVER_V110);
  hid_t id = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.id());
  if (id < 0)
    fail("cannot create " + path + ": check that its directory exists and is writable");
  return Handle(id, H5Fclose);
}

Handle open_file_readonly(const std::string& path) {
  silence_errors();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) fail("cannot open " + path + ": no such file");
  if (H5Fis_hdf5(path.c_str()) <= 0) fail("cannot open " + path + ": not an HDF5 file");
  hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (id < 0) fail("cannot open " + path + ": HDF5 could not read it (truncated or locked?)");
  return Handle(id, H5Fclose);
}

Handle create_group(hid_t parent, const std::string& name) {
  return Handle(check(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                      "cannot create group " + name + " in " + object_name(parent)),
                H5Gclose);
}

Handle open_group(hid_t parent, const std::string& name) {
  return Handle(check(H5Gopen2(parent, name.c_str(), H5P_DEFAULT),
                      object_name(parent) + " has no group " + name),
                H5Gclose);
}

bool has_link(hid_t parent, const std::string& name) {
  return H5Lexists(parent, name.c_str(), H5P_DEFAULT) > 0;
}

std::vector<std::string> list_links(hid_t group) {
  std::vector<std::string> names;
  auto collect = [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
  };
  H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect, &names);
  return names;
}

void write_attribute(hid_t obj, const std::string& name, const std::string& value) {
  if (H5Aexists(obj, name.c_str()) > 0) H5Adelete(obj, name.c_str());
  Handle type = string_type();
  Handle space = scalar_space();
  Handle attr(check(H5Acreate2(obj, name.c_str(), type.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT),
                    "cannot write attribute " + name + " of " + object_name(obj)),
              H5Aclose);
  const char* text = value.c_str();
  check_status(H5Awrite(attr.id(), type.id(), &text), "cannot write attribute " + name);
}

void write_attribute(hid_t obj, const std::string& name, std::int64_t value) {
  write_numeric_attribute(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
}

void write_attribute(hid_t obj, const std::string& name, std::uint64_t value) {
  write_numeric_attribute(obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value);
}

void write_attribute(hid_t obj, const std::string& name, double value) {
  write_numeric_attribute(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

bool has_attribute(hid_t obj, const std::string& name) {
  return H5Aexists(obj, name.c_str()) > 0;
}

AttributeValue read_attribute(hid_t obj, const std::string& name) {
  Handle attr(check(H5Aopen(obj, name.c_str(), H5P_DEFAULT),
                    object_name(obj) + " has no attribute " + name),
              H5Aclose);
  Handle type(H5Aget_type(attr.id()), H5Tclose);
  switch (H5Tget_class(type.id())) {
    case H5T_STRING: {
      if (H5Tis_variable_str(type.id()) > 0) {
        Handle mem = string_type();
        char* text = nullptr;
        check_status(H5Aread(attr.id(), mem.id(), &text), "cannot read attribute " + name);
        std::string out = text ? text : "";
        H5free_memory(text);
        return out;
      }
      std::string out(H5Tget_size(type.id()), '\0');
      Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
      H5Tset_size(mem.id(), out.size());
      check_status(H5Aread(attr.id(), mem.id(), out.data()), "cannot read attribute " + name);
      out.resize(out.find('\0') == std::string::npos ? out.size() : out.find('\0'));
      return out;
    }
    case H5T_INTEGER: {
      std::int64_t v = 0;
      check_status(H5Aread(attr.id(), H5T_NATIVE_INT64, &v), "cannot read attribute " + name);
      return v;
    }
    case H5T_FLOAT: {
      double v = 0;
      check_status(H5Aread(attr.id(), H5T_NATIVE_DOUBLE, &v), "cannot read attribute " + name);
      return v;
    }
    default:
      fail("attribute " + name + " of " + object_name(obj) + " has an unsupported type");
  }
}

std::vector<std::string> list_attributes(hid_t obj) {
  std::vector<std::string> names;
  auto collect = [](hid_t, const char* name, const H5A_info_t*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
  };
  hsize_t idx = 0;
  H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, collect, &names);
  return names;
}

Column::Column(hid_t group, const std::string& name, ElementType type, hsize_t chunk)
    : name_(name) {
  const hsize_t initial = 0, unlimited = H5S_UNLIMITED;
  Handle space(H5Screate_simple(1, &initial, &unlimited), H5Sclose);
  Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_chunk(dcpl.id(), 1, &chunk);
  // Counters and converging metrics compress well; zlib output is deterministic.
  if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0) H5Pset_deflate(dcpl.id(), 4);
  H5Pset_obj_track_times(dcpl.id(), false);  // identical runs give identical bytes
  const hid_t file_type = type == ElementType::int64 ? H5T_STD_I64LE : H5T_IEEE_F64LE;
  dataset_ = Handle(check(H5Dcreate2(group, name.c_str(), file_type, space.id(), H5P_DEFAULT,
                                     dcpl.id(), H5P_DEFAULT),
                          "cannot create dataset " + name + " in " + object_name(group)),
                    H5Dclose);
}

void Column::append(const std::int64_t* values, std::size_t n) {
  append_raw(H5T_NATIVE_INT64, values, n);
}

void Column::append(const double* values, std::size_t n) {
  append_raw(H5T_NATIVE_DOUBLE, values, n);
}

void Column::append_raw(hid_t memory_type, const void* values, std::size_t n) {
  if (n == 0) return;
  const hsize_t count = n, new_size = size_ + n;
  check_status(H5Dset_extent(dataset_.id(), &new_size), "cannot extend dataset " + name_);
  Handle file_space(H5Dget_space(dataset_.id()), H5Sclose);
  H5Sselect_hyperslab(file_space.id(), H5S_SELECT_SET, &size_, nullptr, &count, nullptr);
  Handle memory_space(H5Screate_simple(1, &count, nullptr), H5Sclose);
  check_status(H5Dwrite(dataset_.id(), memory_type, memory_space.id(), file_space.id(),
                        H5P_DEFAULT, values),
               "cannot write dataset " + name_ + " (disk full?)");
  size_ = new_size;
}

namespace {
void write_fixed(hid_t group, const std::string& name, hid_t file_type, hid_t memory_type,
                 const void* data, int rank, const hsize_t* dims) {
  Handle space(H5Screate_simple(rank, dims, nullptr), H5Sclose);
  Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_obj_track_times(dcpl.id(), false);
  Handle ds(check(H5Dcreate2(group, name.c_str(), file_type, space.id(), H5P_DEFAULT, dcpl.id(),
                             H5P_DEFAULT),
                  "cannot create dataset " + name),
            H5Dclose);
  hsize_t total = 1;
  for (int k = 0; k < rank; ++k) total *= dims[k];
  if (total > 0)
    check_status(H5Dwrite(ds.id(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data),
                 "cannot write dataset " + name);
}
}  // namespace

void write_vector(hid_t group, const std::string& name, const std::vector<std::int64_t>& v) {
  const hsize_t n = v.size();
  write_fixed(group, name, H5T_STD_I64LE, H5T_NATIVE_INT64, v.data(), 1, &n);
}

void write_matrix(hid_t group, const std::string& name, const std::vector<std::int64_t>& v,
                  hsize_t rows, hsize_t cols) {
  const hsize_t dims[2] = {rows, cols};
  write_fixed(group, name, H5T_STD_I64LE, H5T_NATIVE_INT64, v.data(), 2, dims);
}

void write_vector(hid_t group, const std::string& name, const std::vector<double>& v) {
  const hsize_t n = v.size();
  write_fixed(group, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v.data(), 1, &n);
}

void write_matrix(hid_t group, const std::string& name, const std::vector<double>& v,
                  hsize_t rows, hsize_t cols) {
  const hsize_t dims[2] = {rows, cols};
  write_fixed(group, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v.data(), 2, dims);
}

void attach_dimension_scale(hid_t scale, const std::string& name, const std::vector<hid_t>& datasets) {
  check_status(H5DSset_scale(scale, name.c_str()), "cannot make " + name + " a dimension scale");
  for (hid_t ds : datasets)
    check_status(H5DSattach_scale(ds, scale, 0), "cannot attach dimension scale " + name);
}

std::string library_version() {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
}

std::vector<double> read_vector(hid_t group, const std::string& name) {
  Handle ds(check(H5Dopen2(group, name.c_str(), H5P_DEFAULT),
                  object_name(group) + " has no dataset " + name),
            H5Dclose);
  Handle space(H5Dget_space(ds.id()), H5Sclose);
  if (H5Sget_simple_extent_ndims(space.id()) != 1)
    fail("dataset " + name + " of " + object_name(group) + " is not 1-D");
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space.id(), &n, nullptr);
  std::vector<double> out(n);
  if (n > 0)
    check_status(H5Dread(ds.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()),
                 "cannot read dataset " + name);
  return out;
}

}  // namespace fedbench::io::h5
