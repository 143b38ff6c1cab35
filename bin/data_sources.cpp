#include "data_sources.hpp"

#include <map>

namespace fedbench::cli {

namespace {

// LIBSVM's data page (Chang and Lin); its binary/ and multiclass/ folders.
const std::string kLibsvm = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/";
// LeCun's MNIST page answers 403 to many clients; the copy torchvision downloads from is the
// same bytes (the registry's checksums are of LeCun's originals).
const std::string kMnist = "http://yann.lecun.com/exdb/mnist/";
const std::string kMnistMirror = "https://ossci-datasets.s3.amazonaws.com/mnist/";
// Zalando's Fashion-MNIST release (github.com/zalandoresearch/fashion-mnist).
const std::string kFashion = "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/";

const std::map<std::string, std::vector<std::string>>& sources() {
  static const std::map<std::string, std::vector<std::string>> table{
      {"libsvm/a9a", {kLibsvm + "binary/a9a"}},
      {"libsvm/a9a.t", {kLibsvm + "binary/a9a.t"}},
      {"libsvm/a1a", {kLibsvm + "binary/a1a"}},
      {"libsvm/a1a.t", {kLibsvm + "binary/a1a.t"}},
      {"libsvm/w8a", {kLibsvm + "binary/w8a"}},
      {"libsvm/w8a.t", {kLibsvm + "binary/w8a.t"}},
      {"libsvm/mushrooms", {kLibsvm + "binary/mushrooms"}},
      {"libsvm/heart_scale", {kLibsvm + "binary/heart_scale"}},
      {"libsvm/australian", {kLibsvm + "binary/australian"}},
      {"libsvm/breast-cancer_scale", {kLibsvm + "binary/breast-cancer_scale"}},
      // ijcnn1's 35000 training rows are the page's ijcnn1.tr (ijcnn1.bz2 is tr + val).
      {"libsvm/ijcnn1", {kLibsvm + "binary/ijcnn1.tr.bz2"}},
      {"libsvm/ijcnn1.t", {kLibsvm + "binary/ijcnn1.t.bz2"}},
      {"libsvm/ijcnn1.val", {kLibsvm + "binary/ijcnn1.val.bz2"}},
      {"libsvm/letter.scale", {kLibsvm + "multiclass/letter.scale"}},
      {"libsvm/letter.scale.t", {kLibsvm + "multiclass/letter.scale.t"}},
      {"libsvm/letter.scale.tr", {kLibsvm + "multiclass/letter.scale.tr"}},
      {"libsvm/letter.scale.val", {kLibsvm + "multiclass/letter.scale.val"}},
      {"libsvm/pendigits", {kLibsvm + "multiclass/pendigits"}},
      {"libsvm/pendigits.t", {kLibsvm + "multiclass/pendigits.t"}},
      {"libsvm/dna.scale", {kLibsvm + "multiclass/dna.scale"}},
      {"libsvm/dna.scale.t", {kLibsvm + "multiclass/dna.scale.t"}},
      {"libsvm/satimage.scale", {kLibsvm + "multiclass/satimage.scale"}},
      {"libsvm/satimage.scale.t", {kLibsvm + "multiclass/satimage.scale.t"}},
      {"libsvm/covtype.libsvm.binary", {kLibsvm + "binary/covtype.libsvm.binary.bz2"}},
      {"libsvm/phishing", {kLibsvm + "binary/phishing"}},
      {"mnist-t10k/t10k-images-idx3-ubyte.gz",
       {kMnist + "t10k-images-idx3-ubyte.gz", kMnistMirror + "t10k-images-idx3-ubyte.gz"}},
      {"mnist-t10k/t10k-labels-idx1-ubyte.gz",
       {kMnist + "t10k-labels-idx1-ubyte.gz", kMnistMirror + "t10k-labels-idx1-ubyte.gz"}},
      {"fashion-mnist/train-images-idx3-ubyte.gz", {kFashion + "train-images-idx3-ubyte.gz"}},
      {"fashion-mnist/train-labels-idx1-ubyte.gz", {kFashion + "train-labels-idx1-ubyte.gz"}},
      {"fashion-mnist/t10k-images-idx3-ubyte.gz", {kFashion + "t10k-images-idx3-ubyte.gz"}},
      {"fashion-mnist/t10k-labels-idx1-ubyte.gz", {kFashion + "t10k-labels-idx1-ubyte.gz"}},
  };
  return table;
}

}  // namespace

const std::vector<std::string>& download_urls(const std::string& relative) {
  static const std::vector<std::string> none;
  const auto it = sources().find(relative);
  return it == sources().end() ? none : it->second;
}

}  // namespace fedbench::cli
