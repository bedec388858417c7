sch.cache_index("A", "global", cse_thresh=2)
print(sch.trace)
