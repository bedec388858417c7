sch.unsafe_set_dtype("C", 0, "float16")
