# storage_align records buffer_dim_align entries on the writer's block; an
# entry for the same (buffer, axis) is replaced, a negative axis is
# normalized, and the cache stage made by cache_read can be aligned too.
sch.storage_align("B", 0, 0, 16, 1)
sch.storage_align("B", 0, -1, 8, 3)
sch.storage_align("B", 0, 1, 32, 0)
c = sch.cache_read("C", 0, "shared")
sch.storage_align(c, 0, 0, 32, 8)
print(sch.trace)
