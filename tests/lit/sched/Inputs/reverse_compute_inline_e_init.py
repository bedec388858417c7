sch.work_on("mm_relu")
sch.reverse_compute_inline("Y")
