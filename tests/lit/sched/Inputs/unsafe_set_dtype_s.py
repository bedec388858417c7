sch.unsafe_set_dtype("B", 0, "float16")
print(sch.trace)
