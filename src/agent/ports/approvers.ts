/** Who may approve: Slack resolves user groups (`S…`) to members; tests use a fixed list. */
export interface ApproverDirectory {
  /** True when the approver list is empty (anyone may approve) or the user is on it directly or through a group. */
  isApprover(userId: string): Promise<boolean>;
  /** The approver list as set (user ids `U…` and group ids `S…`), so a refusal can name who may; absent: it names nobody. */
  listed?(): readonly string[];
}
