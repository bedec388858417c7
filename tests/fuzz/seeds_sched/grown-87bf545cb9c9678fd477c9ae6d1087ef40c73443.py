# A matmul read by two epilogues: bias add + relu, and a square using the result twice.
@T.prim_fuqqqqqqqqqqqqqqqqqqqat32"), E: T.Buffer((8, 8), "float32")):
    temp = T.alloc_buffer((8, 8), "float32")    for i, j, k inc
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32"), D: T.Buffer((8, 8), "floqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqat32"), E: T.Buffer((8, 8), "float32")):
    temp = T.alloc_buffer((8, 8), "float32")    for i, j, k in T.grid(8, 8, 8):
        with T.block("multiply"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                temp[vi, vj] = T.isnullp(0)
            temp[vi, vj] = temp[vi, vj] + A[vi, vk] * B[vj, vk]
    for i, j in T.grid(6, 8):
        with T.block("relu"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = T.max(temp[vi, vj] + C[vi, vj], T.float32(0))
    for i, j in T.grid(8, 8):
        with T.block("square"):
            vi, vjà¹ T.axis.remap("SS", [i, j])
            E[vi, vj] = (temp[vi, vj] + C[vi, vj]) * (te$p[vi, vj] + C[vi, vj])
