// CUTLASS's warp-specialized cooperative Hopper GEMM, built through CUTLASS 3's CollectiveBuilder,
// as an anchor of `python -m labkit bench gemm --anchor` (labkit.cuda.kernels.ladder.gemm_anchor).
//
// One source, two variants chosen at build time:
//   -DLABKIT_GEMM_F16   half_t x half_t -> half_t C/D, f32 accumulate, tile 128x256x64
//   -DLABKIT_GEMM_E4M3  float_e4m3_t x float_e4m3_t -> bfloat16_t D (no C), f32 accumulate in the
//                       wgmma accumulators over all of K (KernelTmaWarpSpecializedCooperativeFP8FastAccum,
//                       as labkit's step 7 does; the promoting schedule keeps a second set of 128
//                       accumulators a thread, which at 128x256 spills past the 168-register cap),
//                       tile 128x256x128, D = alpha * A * B^T with alpha the product of the per-tensor scales
// Both are "T N": A (M,K) row-major (K-major), B given as (N,K) K-major (ColumnMajor K x N), so
// D = alpha * A * B^T + beta * C with D (M,N) row-major; beta = 0 (C, where there is one, is not read).
// Mainloop: KernelTmaWarpSpecializedCooperative (FP8FastAccum for e4m3; one producer warpgroup issuing TMA, two consumer
// warpgroups taking 64 rows each of the 128-row tile, persistent tile scheduler); epilogue:
// TmaWarpSpecializedCooperative (TMA store) with LinearCombination; stages: as many as fit beside the
// epilogue's shared memory (StageCountAutoCarveout).
//
// Cluster 2x1x1 (override with -DLABKIT_CLUSTER_M / -DLABKIT_CLUSTER_N): CUTLASS's library generator
// emits these tiles, at its default instantiation level, with 2-CTA clusters only (1x2x1 and 2x1x1;
// 1x1x1 needs a higher level); 2x1x1 pairs two CTAs along M that share one 256-row B tile, which TMA
// multicasts (each CTA loads half), so the larger operand tile crosses L2 once per 256x256 of D.
//
// Usage: cutlass_sm90_gemm M N K. A and B are filled on the device from a fixed seed (uniform in
// [-1, 1); for e4m3, codes uniform in [-448, 448] with scales 1/448, as if quantized from [-1, 1));
// one run warms up and is checked against a float64 reference on the host over sampled rows and
// columns; then 100 launches are timed between two CUDA events. The last line reads
//   CUTLASS_GEMM: [<GFlop/s>]GFlop/s  (<ms>)ms  rel_err <x>  abs_ratio <r>  samples <n>
// rel_err = ||D - ref|| / ||ref|| and abs_ratio = || |A| |B|^T || / ||ref|| over the samples.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cutlass/cutlass.h"
#include "cutlass/numeric_types.h"
#include "cute/tensor.hpp"
#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/epilogue/fusion/operations.hpp"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/gemm/kernel/gemm_universal.hpp"
#include "cutlass/kernel_hardware_info.h"
#include "cutlass/util/device_memory.h"
#include "cutlass/util/packed_stride.hpp"

#if defined(LABKIT_GEMM_F16) == defined(LABKIT_GEMM_E4M3)
#error "define exactly one of LABKIT_GEMM_F16 and LABKIT_GEMM_E4M3"
#endif
#ifndef LABKIT_CLUSTER_M
#define LABKIT_CLUSTER_M 2
#endif
#ifndef LABKIT_CLUSTER_N
#define LABKIT_CLUSTER_N 1
#endif

using namespace cute;

#if defined(LABKIT_GEMM_F16)
using ElementA = cutlass::half_t;
using ElementB = cutlass::half_t;
using ElementC = cutlass::half_t;
using ElementD = cutlass::half_t;
using TileShape = Shape<_128, _256, _64>;
static char const* const kVariant = "f16";
static float const kRange = 1.0f;      // A and B uniform in [-1, 1)
static float const kScale = 1.0f;      // no per-tensor scales
#else
using ElementA = cutlass::float_e4m3_t;
using ElementB = cutlass::float_e4m3_t;
using ElementC = void;                 // D = alpha * A * B^T: no C
using ElementD = cutlass::bfloat16_t;
using TileShape = Shape<_128, _256, _128>;
static char const* const kVariant = "e4m3";
static float const kRange = 448.0f;    // codes over e4m3's finite range
static float const kScale = 1.0f / 448.0f;
#endif

#if defined(LABKIT_GEMM_F16)
using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedCooperative;
#else
using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedCooperativeFP8FastAccum;
#endif
using ElementAccumulator = float;
using ElementCompute = float;
using LayoutA = cutlass::layout::RowMajor;     // (M,K), K-major
using LayoutB = cutlass::layout::ColumnMajor;  // K x N column-major: B (N,K), K-major
using LayoutC = cutlass::layout::RowMajor;     // (M,N), N-major
using LayoutD = cutlass::layout::RowMajor;
constexpr int AlignmentA = 128 / cutlass::sizeof_bits<ElementA>::value;  // 16-byte TMA rows
constexpr int AlignmentB = 128 / cutlass::sizeof_bits<ElementB>::value;
constexpr int AlignmentD = 128 / cutlass::sizeof_bits<ElementD>::value;
constexpr int AlignmentC = AlignmentD;
using ClusterShape = Shape<Int<LABKIT_CLUSTER_M>, Int<LABKIT_CLUSTER_N>, _1>;

using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    TileShape, ClusterShape, cutlass::epilogue::collective::EpilogueTileAuto,
    ElementAccumulator, ElementCompute,
    ElementC, LayoutC, AlignmentC,
    ElementD, LayoutD, AlignmentD,
    cutlass::epilogue::TmaWarpSpecializedCooperative,
    cutlass::epilogue::fusion::LinearCombination<ElementD, ElementCompute, ElementC, ElementCompute>
  >::CollectiveOp;

using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    ElementA, LayoutA, AlignmentA,
    ElementB, LayoutB, AlignmentB,
    ElementAccumulator, TileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<
      static_cast<int>(sizeof(typename CollectiveEpilogue::SharedStorage))>,
    MainloopSchedule
  >::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<
    Shape<int, int, int, int>, CollectiveMainloop, CollectiveEpilogue>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;

#define CHECK_CUDA(call)                                                                    \
  do {                                                                                      \
    cudaError_t e_ = (call);                                                                \
    if (e_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_));               \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

#define CHECK_CUTLASS(call)                                                                 \
  do {                                                                                      \
    cutlass::Status s_ = (call);                                                            \
    if (s_ != cutlass::Status::kSuccess) {                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, cutlass::cutlassGetStatusString(s_));  \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

// splitmix64: a fixed-seed uniform in [lo, hi) for element i, the same on every run.
__host__ __device__ inline float uniform_at(uint64_t seed, uint64_t i, float lo, float hi) {
  uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return lo + (hi - lo) * float(z >> 40) * (1.0f / 16777216.0f);
}

template <class Element>
__global__ void fill_uniform(Element* ptr, size_t n, uint64_t seed, float lo, float hi) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    ptr[i] = Element(uniform_at(seed, i, lo, hi));
  }
}

template <class Element>
static std::vector<Element> copy_row(Element const* ptr, long row, long cols) {
  std::vector<Element> host(cols);
  CHECK_CUDA(cudaMemcpy(host.data(), ptr + row * cols, cols * sizeof(Element), cudaMemcpyDeviceToHost));
  return host;
}

// A sample of `count` indices in [0, extent): the first, the last, the rest from a fixed LCG.
static std::vector<long> sample(long extent, int count, uint64_t seed) {
  std::vector<long> out{0, extent - 1};
  for (int i = 2; i < count && extent > 2; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    out.push_back(long((seed >> 33) % uint64_t(extent)));
  }
  return out;
}

static bool positive(char const* text, long* value) {
  char* end = nullptr;
  *value = std::strtol(text, &end, 10);
  return end != text && *end == '\0' && *value > 0 && *value <= (1l << 20);
}

int main(int argc, char const** argv) {
  long M, N, K;
  if (argc != 4 || !positive(argv[1], &M) || !positive(argv[2], &N) || !positive(argv[3], &K)) {
    std::fprintf(stderr, "usage: %s M N K (positive integers)\n", argv[0]);
    return 2;
  }
  int device = 0, major = 0, minor = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  CHECK_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CHECK_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major != 9 || minor != 0) {
    std::fprintf(stderr, "built for sm_90a (wgmma, TMA multicast); this GPU is sm_%d%d\n", major, minor);
    return 1;
  }

  cutlass::DeviceAllocation<ElementA> A(size_t(M) * K);
  cutlass::DeviceAllocation<ElementB> B(size_t(N) * K);
  cutlass::DeviceAllocation<ElementD> D(size_t(M) * N);
  fill_uniform<<<1024, 256>>>(A.get(), A.size(), 2023, -kRange, kRange);
  fill_uniform<<<1024, 256>>>(B.get(), B.size(), 2024, -kRange, kRange);
  CHECK_CUDA(cudaMemset(D.get(), 0, D.size() * sizeof(ElementD)));
  CHECK_CUDA(cudaGetLastError());

  auto stride_A = cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideA{}, {int(M), int(K), 1});
  auto stride_B = cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideB{}, {int(N), int(K), 1});
  auto stride_C = cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideC{}, {int(M), int(N), 1});
  auto stride_D = cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideD{}, {int(M), int(N), 1});
  float const alpha = kScale * kScale;
  typename Gemm::Arguments arguments{
      cutlass::gemm::GemmUniversalMode::kGemm,
      {int(M), int(N), int(K), 1},
      {A.get(), stride_A, B.get(), stride_B},
      {{alpha, 0.0f}, nullptr, stride_C, D.get(), stride_D},
      cutlass::KernelHardwareInfo::make_kernel_hardware_info<GemmKernel>(device)};
#if defined(LABKIT_GEMM_F16)
  arguments.epilogue.ptr_C = D.get();  // beta = 0: never read, but the TMA descriptor needs an address
#endif

  Gemm gemm;
  CHECK_CUTLASS(gemm.can_implement(arguments));
  cutlass::DeviceAllocation<uint8_t> workspace(Gemm::get_workspace_size(arguments));
  CHECK_CUTLASS(gemm.initialize(arguments, workspace.get()));
  std::printf("cutlass %s: tile %dx%dx%d, cluster %dx%dx1, %d stages, %d threads, %d bytes of shared memory\n",
              kVariant, int(size<0>(TileShape{})), int(size<1>(TileShape{})), int(size<2>(TileShape{})),
              LABKIT_CLUSTER_M, LABKIT_CLUSTER_N, int(CollectiveMainloop::DispatchPolicy::Stages),
              int(GemmKernel::MaxThreadsPerBlock), int(GemmKernel::SharedStorageSize));
  CHECK_CUTLASS(gemm.run());  // warm-up, and the result checked below
  CHECK_CUDA(cudaDeviceSynchronize());

  double err2 = 0, ref2 = 0, abs2 = 0;
  std::vector<long> rows = sample(M, 24, 7), cols = sample(N, 24, 11);
  std::vector<std::vector<ElementB>> b_rows;
  for (long j : cols) b_rows.push_back(copy_row(B.get(), j, K));
  for (long i : rows) {
    std::vector<ElementA> a = copy_row(A.get(), i, K);
    std::vector<ElementD> d = copy_row(D.get(), i, N);
    for (size_t c = 0; c < cols.size(); ++c) {
      double ref = 0, mag = 0;
      for (long k = 0; k < K; ++k) {
        double p = double(float(a[k])) * double(float(b_rows[c][k]));
        ref += p;
        mag += std::fabs(p);
      }
      ref *= double(alpha);
      mag *= double(alpha);
      double got = double(float(d[cols[c]]));
      err2 += (got - ref) * (got - ref);
      ref2 += ref * ref;
      abs2 += mag * mag;
    }
  }
  double rel_err = std::isfinite(err2) ? std::sqrt(err2 / ref2) : INFINITY;

  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  int const launches = 100;
  CHECK_CUDA(cudaEventRecord(start));
  for (int r = 0; r < launches; ++r) {
    CHECK_CUTLASS(gemm.run());
  }
  CHECK_CUDA(cudaEventRecord(stop));
  CHECK_CUDA(cudaEventSynchronize(stop));
  CHECK_CUDA(cudaGetLastError());
  float total_ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&total_ms, start, stop));
  double ms = double(total_ms) / launches;
  double gflops = 2.0 * double(M) * double(N) * double(K) * 1e-9 / (ms * 1e-3);
  std::printf("CUTLASS_GEMM: [%.1f]GFlop/s  (%.4f)ms  rel_err %.3e  abs_ratio %.3e  samples %zu\n",
              gflops, ms, rel_err, std::sqrt(abs2 / ref2), rows.size() * cols.size());
  return 0;
}
