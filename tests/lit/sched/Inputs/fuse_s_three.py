sch.fuse(*sch.get_loops("B"))
sch.fuse(*sch.get_loops("C"))
sch.work_on("sym")
sch.fuse(*sch.get_loops("B"))
