sch.fuse()
