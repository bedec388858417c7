sch.work_on("fused")
sch.reverse_compute_inline(sch.get_block("C"))
sch.work_on("split")
sch.reverse_compute_inline(sch.get_block("C"))
