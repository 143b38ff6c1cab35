#include "io/hdf5.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <system_error>
#include <vector>

#include <hdf5_hl.h>

#include "core/error.hpp"
#include "io/new_file.hpp"
#include "io/screen/layout_checks.hpp"

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

// One value, or a 1-D array of `count` values when count is given.
void write_numeric_attribute(hid_t obj, const std::string& name, hid_t file_type,
                             hid_t memory_type, const void* value, std::optional<hsize_t> count = {}) {
  if (H5Aexists(obj, name.c_str()) > 0) H5Adelete(obj, name.c_str());
  Handle space = count ? Handle(H5Screate_simple(1, &*count, nullptr), H5Sclose) : scalar_space();
  Handle attr(check(H5Acreate2(obj, name.c_str(), file_type, space.id(), H5P_DEFAULT, H5P_DEFAULT),
                    "cannot write attribute " + name + " of " + object_name(obj)),
              H5Aclose);
  check_status(H5Awrite(attr.id(), memory_type, value), "cannot write attribute " + name);
}

}  // namespace

// libhdf5's exit handler closes files still open at exit; after a failed write (disk full)
// that close crashes inside libhdf5 1.10. fedbench closes every file it opens (RAII), so the
// handler has nothing to do: it is not installed. Runs before main, before any HDF5 call.
[[maybe_unused]] const bool kNoExitHandler = H5dont_atexit() >= 0;

void silence_errors() {
  // The thread-safe libhdf5 (Debian's) keeps one error stack per thread: silence each thread
  // that touches a file, or a suite worker prints HDF5's whole stack on a failed write.
  thread_local bool silenced = false;
  if (!silenced) H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  silenced = true;
}

Handle create_file(const Directory& dir, const std::string& name) {
  silence_errors();
  // The 1.10 file format indexes extendible datasets compactly (extensible arrays instead of
  // v1 B-trees): a 30-column run file shrinks from ~60 kB to a few kB. h5py reads it.
  Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_libver_bounds(fapl.id(), H5F_LIBVER_V110, H5F_LIBVER_V110);
  dir.make_way_for(name);  // never through a planted link; EXCL: nothing swapped in meanwhile
  errno = 0;
  hid_t id = H5Fcreate(dir.via_handle(name).c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.id());
  if (id < 0)
    fail("cannot create " + dir.shown(name) + ": " +
         (errno ? std::error_code(errno, std::generic_category()).message()
                : "check that its directory exists and is writable"));
  return Handle(id, H5Fclose);
}

Handle create_file(const std::string& path) {
  return create_file(Directory::holding(path), std::filesystem::path(path).filename().string());
}

// Bob Jenkins' lookup3 hash (hashlittle, read byte by byte).
std::uint32_t metadata_checksum(const unsigned char* k, std::size_t length) {
  auto rot = [](std::uint32_t x, int r) { return (x << r) | (x >> (32 - r)); };
  auto word = [](const unsigned char* p, std::size_t n) {  // up to 4 bytes, little-endian
    std::uint32_t w = 0;
    for (std::size_t i = 0; i < n; ++i) w |= std::uint32_t{p[i]} << (8 * i);
    return w;
  };
  std::uint32_t a = 0xdeadbeef + static_cast<std::uint32_t>(length), b = a, c = a;
  for (; length > 12; length -= 12, k += 12) {
    a += word(k, 4), b += word(k + 4, 4), c += word(k + 8, 4);
    a -= c, a ^= rot(c, 4), c += b;
    b -= a, b ^= rot(a, 6), a += c;
    c -= b, c ^= rot(b, 8), b += a;
    a -= c, a ^= rot(c, 16), c += b;
    b -= a, b ^= rot(a, 19), a += c;
    c -= b, c ^= rot(b, 4), b += a;
  }
  if (length == 0) return c;
  a += word(k, std::min<std::size_t>(length, 4));  // the last 1..12 bytes, zero-padded
  if (length > 4) b += word(k + 4, std::min<std::size_t>(length - 4, 4));
  if (length > 8) c += word(k + 8, length - 8);
  c ^= b, c -= rot(b, 14);
  a ^= c, a -= rot(c, 11);
  b ^= a, b -= rot(a, 25);
  c ^= b, c -= rot(b, 16);
  a ^= c, a -= rot(c, 4);
  b ^= a, b -= rot(a, 14);
  c ^= b, c -= rot(b, 24);
  return c;
}

namespace {

// The longest fixed-size text attribute read: fedbench writes variable-length ones.
constexpr std::size_t kMaxTextBytes = std::size_t{1} << 24;
// The longest chunk read, in values; fedbench writes 256 (libhdf5 allocates whole chunks).
constexpr hsize_t kMaxChunk = hsize_t{1} << 20;

// Integers and IEEE floats of the standard layouts (what fedbench and h5py write): libhdf5
// then converts with its plain routines, never its generic ones for arbitrary bit layouts.
bool standard_number(hid_t type) {
  const hid_t standard[] = {H5T_STD_I8LE,  H5T_STD_I16LE, H5T_STD_I32LE, H5T_STD_I64LE,
                            H5T_STD_U8LE,  H5T_STD_U16LE, H5T_STD_U32LE, H5T_STD_U64LE,
                            H5T_STD_I8BE,  H5T_STD_I16BE, H5T_STD_I32BE, H5T_STD_I64BE,
                            H5T_STD_U8BE,  H5T_STD_U16BE, H5T_STD_U32BE, H5T_STD_U64BE,
                            H5T_IEEE_F32LE, H5T_IEEE_F64LE, H5T_IEEE_F32BE, H5T_IEEE_F64BE};
  return std::any_of(std::begin(standard), std::end(standard),
                     [&](hid_t t) { return H5Tequal(type, t) > 0; });
}

// A dataset is read only with the storage fedbench writes: in this file (no external or
// virtual sources), filtered by deflate at most (shuffle and Fletcher-32 are harmless), in
// 1-D chunks small enough that libhdf5's chunk buffer is no allocation bomb.
void check_storage(hid_t dataset, const std::string& what) {
  Handle dcpl(H5Dget_create_plist(dataset), H5Pclose);
  const H5D_layout_t layout = H5Pget_layout(dcpl.id());
  if (layout != H5D_COMPACT && layout != H5D_CONTIGUOUS && layout != H5D_CHUNKED)
    fail(what + " has a storage layout fedbench does not write");
  if (H5Pget_external_count(dcpl.id()) != 0) fail(what + " keeps its data in another file");
  const int filters = H5Pget_nfilters(dcpl.id());
  if (filters < 0) fail(what + ": cannot read its filters");
  for (int i = 0; i < filters; ++i) {
    unsigned flags = 0, config = 0;
    std::size_t values = 8;
    unsigned client_data[8] = {};
    const H5Z_filter_t id = H5Pget_filter2(dcpl.id(), static_cast<unsigned>(i), &flags, &values,
                                           client_data, 0, nullptr, &config);
    if (id != H5Z_FILTER_DEFLATE && id != H5Z_FILTER_SHUFFLE && id != H5Z_FILTER_FLETCHER32)
      fail(what + " uses HDF5 filter " + std::to_string(id) + ", which fedbench does not write");
  }
  if (layout == H5D_CHUNKED) {
    hsize_t chunk = 0;
    if (H5Pget_chunk(dcpl.id(), 1, &chunk) != 1 || chunk == 0 || chunk > kMaxChunk)
      fail(what + " has chunks fedbench does not write");
  }
}

}  // namespace

// fedbench writes no external links: their class is unregistered before any file is read, so a
// planted one (to another file, or to a FIFO that would block the reader) is a dataset that does
// not open, never a file opened.
static void refuse_external_links() {
  static const bool refused = [] {
    if (H5Lis_registered(H5L_TYPE_EXTERNAL) > 0) H5Lunregister(H5L_TYPE_EXTERNAL);
    return true;
  }();
  (void)refused;
}

Handle open_file_readonly(const std::string& path) {
  silence_errors();
  refuse_external_links();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) fail("cannot open " + path + ": no such file");
  check_layout(path);
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

void write_attribute(hid_t obj, const std::string& name, const std::vector<std::int64_t>& values) {
  write_numeric_attribute(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, values.data(), values.size());
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
  // libhdf5 writes every element into our one-value buffer: an array here would overflow it.
  Handle space(H5Aget_space(attr.id()), H5Sclose);
  if (H5Sget_simple_extent_npoints(space.id()) != 1)
    fail("attribute " + name + " of " + object_name(obj) + " is not a single value");
  Handle type(H5Aget_type(attr.id()), H5Tclose);
  switch (H5Tget_class(type.id())) {
    case H5T_STRING: {
      if (H5Tis_variable_str(type.id()) > 0) {
        Handle mem = string_type();
        char* text = nullptr;
        const herr_t status = H5Aread(attr.id(), mem.id(), &text);
        std::string out = status >= 0 && text ? text : "";
        H5free_memory(text);  // also after a failed read: it may have allocated
        check_status(status, "cannot read attribute " + name);
        return out;
      }
      const std::size_t size = H5Tget_size(type.id());
      if (size == 0 || size > kMaxTextBytes)
        fail("attribute " + name + " of " + object_name(obj) + " is a text of " +
             std::to_string(size) + " bytes");
      std::string out(size, '\0');
      Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
      H5Tset_size(mem.id(), out.size());
      check_status(H5Aread(attr.id(), mem.id(), out.data()), "cannot read attribute " + name);
      out.resize(out.find('\0') == std::string::npos ? out.size() : out.find('\0'));
      return out;
    }
    case H5T_INTEGER:
    case H5T_FLOAT: {
      if (!standard_number(type.id()))
        fail("attribute " + name + " of " + object_name(obj) + " has a non-standard number type");
      if (H5Tget_class(type.id()) == H5T_FLOAT) {
        double v = 0;
        check_status(H5Aread(attr.id(), H5T_NATIVE_DOUBLE, &v), "cannot read attribute " + name);
        return v;
      }
      std::int64_t v = 0;
      check_status(H5Aread(attr.id(), H5T_NATIVE_INT64, &v), "cannot read attribute " + name);
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
  // A checksum per chunk (metadata has its own in this file format): a bit flipped on disk
  // makes the read fail instead of changing a number.
  H5Pset_fletcher32(dcpl.id());
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

std::vector<double> read_vector(hid_t group, const std::string& name, hsize_t max_length) {
  H5L_info_t link{};
  if (H5Lget_info(group, name.c_str(), &link, H5P_DEFAULT) >= 0 && link.type != H5L_TYPE_HARD)
    fail(object_name(group) + "/" + name + " is a link (soft or to another file), which fedbench never writes");
  Handle ds(check(H5Dopen2(group, name.c_str(), H5P_DEFAULT),
                  object_name(group) + " has no dataset " + name),
            H5Dclose);
  const std::string what = "dataset " + name + " of " + object_name(group);
  Handle space(H5Dget_space(ds.id()), H5Sclose);
  if (H5Sget_simple_extent_type(space.id()) != H5S_SIMPLE || H5Sget_simple_extent_ndims(space.id()) != 1)
    fail(what + " is not 1-D");
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space.id(), &n, nullptr);
  if (n > max_length)
    fail(what + " claims " + std::to_string(n) + " values, more than the file can hold (corrupt, or a "
                "decompression bomb)");
  Handle type(H5Dget_type(ds.id()), H5Tclose);
  if (!standard_number(type.id())) fail(what + " does not hold plain numbers");
  check_storage(ds.id(), what);
  std::vector<double> out(n);
  if (n > 0)
    check_status(H5Dread(ds.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()),
                 "cannot read dataset " + name);
  return out;
}

}  // namespace fedbench::io::h5
