# Fuse the spatial iters of the reduction block, then split the reduction iter.
sch.transform_block_layout("C", lambda i, j, k: (i * 16 + j, k // 4, k % 4))
print(sch.trace)
