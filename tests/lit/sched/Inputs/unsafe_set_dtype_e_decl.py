sch.unsafe_set_dtype("B", 0, "float64")
