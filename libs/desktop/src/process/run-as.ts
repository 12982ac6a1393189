/** Who a desktop process runs as. Only set when the worker is root and drops to the computer's user. */
export interface RunAs {
  uid: number;
  gid: number;
}
