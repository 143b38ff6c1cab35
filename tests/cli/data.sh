#!/usr/bin/env bash
# `fedbench data`: list shows present and missing datasets, verify checks the shared files'
# checksums, partition prints sizes that add up to the dataset and a histogram per client.
source "$(dirname "$0")/lib.bash"
expect_ok "a9a +libsvm +123 +2 +train +32561 +.*shared/datasets/libsvm/a9a" "$fedbench" data list
expect_ok "covtype .*missing libsvm/covtype.libsvm.binary: fedbench data get covtype" "$fedbench" data list
expect_ok "^[0-9]+ files checked, 0 problems" "$fedbench" data verify
expect_ok "^2 files checked, 0 problems" "$fedbench" data verify a9a
expect_fail 2 "fedbench: unknown dataset 'a9'; valid: a9a, a1a, w8a, mushrooms, heart, australian, breast-cancer, ijcnn1, letter, pendigits, dna, satimage, covtype, phishing, mnist-t10k, fashion-mnist (did you mean 'a9a'?)" \
  "$fedbench" data partition a9 --clients 3
checks=$((checks + 1))
out=$("$fedbench" data partition heart --clients 4 --scheme shards:2 --seed 3)
total=$(awk 'NR > 2 { s += $2 } END { print s }' <<<"$out")
if [ "$total" != 270 ]; then echo "FAIL: partition sizes add up to $total, not 270"; failures=$((failures + 1)); fi
expect_fail 2 "fedbench: partition 'halves' is not valid; use iid, shards:S (S whole >= 1), dirichlet:A, quantity:A (A > 0) or contiguous" \
  "$fedbench" data partition heart --scheme halves
finish
