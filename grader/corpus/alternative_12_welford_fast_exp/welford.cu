    // Welford, per thread: how many values it read, their mean and the sum of their squared
    // deviations from it, in one pass.
    float count = 0.0f, mean = 0.0f, m2 = 0.0f;
    row.for_each([&](float v) {
        count += 1.0f;
        const float delta = v - mean;
        mean += delta / count;
        m2 += delta * (v - mean);
    });
    // Chan's formula merges two such triples; every lane merges with its xor partner, so after five
    // steps every lane holds its warp's triple, and after the warps' triples are merged the same way,
    // every thread holds the row's.
    auto merge_warp = [&] {
        for (int offset = 16; offset > 0; offset /= 2) {
            const float other_count = __shfl_xor_sync(0xffffffffu, count, offset);
            const float other_mean = __shfl_xor_sync(0xffffffffu, mean, offset);
            const float other_m2 = __shfl_xor_sync(0xffffffffu, m2, offset);
            const float total = count + other_count;
            if (total > 0.0f) {
                const float delta = other_mean - mean;
                mean += delta * (other_count / total);
                m2 += other_m2 + delta * delta * (count * other_count / total);
            }
            count = total;
        }
    };
    __shared__ float counts[32], means[32], m2s[32];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    merge_warp();
    if (lane == 0) counts[warp] = count, means[warp] = mean, m2s[warp] = m2;
    __syncthreads();
    const bool has_warp = lane < blockDim.x / 32;
    count = has_warp ? counts[lane] : 0.0f;
    mean = has_warp ? means[lane] : 0.0f;
    m2 = has_warp ? m2s[lane] : 0.0f;
    merge_warp();
    const float variance = m2 / count;
