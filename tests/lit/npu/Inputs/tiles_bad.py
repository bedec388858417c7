# 24 columns: not whole 16-column GEMM blocks.
b = sch.get_block("C")
i, j, k = sch.get_loops(b)
jo, ji = sch.split(j, factors=[None, 24])
sch.reorder(jo, i, ji, k)
Cl = sch.cache_write(b, 0, "npu.acc")
sch.reverse_compute_at(Cl, jo)
