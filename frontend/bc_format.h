/* MLIR bytecode's fixed numbers (mlir/include/mlir/Bytecode/Encoding.h),
 * shared by the reader (frontend/bc_read*.c) and the writer
 * (frontend/bc_write*.c). */
#ifndef TPUCC_BC_FORMAT_H
#define TPUCC_BC_FORMAT_H

/* Format versions whose layout differs from the one before. */
enum {
  BC_V_DIALECT_VERSIONING = 1,         /* dialect version records */
  BC_V_LAZY_LOADING = 2,               /* isolated regions in their own section */
  BC_V_USE_LIST_ORDERING = 3,          /* use-list orders */
  BC_V_ELIDE_UNKNOWN_BLOCK_ARG_LOC = 4, /* block arguments' unknown locations elided */
  BC_V_NATIVE_PROPERTIES = 5,          /* the properties section; op names' registered bit */
  BC_V_CURRENT = 6,
};

/* Top-level section ids. */
enum {
  BC_SEC_STRING,
  BC_SEC_DIALECT,
  BC_SEC_ATTR_TYPE,
  BC_SEC_ATTR_TYPE_OFFSET,
  BC_SEC_IR,
  BC_SEC_RESOURCE,
  BC_SEC_RESOURCE_OFFSET,
  BC_SEC_DIALECT_VERSIONS,
  BC_SEC_PROPERTIES,
  BC_NUM_SECTIONS,
};

#endif
