/**
 * The demo's three people, so one person at the keyboard can try what needs several: Robin asks, Alex
 * is the second approver a merge needs (four-eyes), Casey may watch but not approve or answer.
 * Robin and Alex are TANDEM_APPROVERS in the demo.
 */
export interface DemoPerson {
  id: string;
  name: string;
  /** How the workspace's person switch names them. */
  title: string;
  approver: boolean;
}

export const DEMO_PEOPLE: readonly DemoPerson[] = [
  { id: 'UROBIN', name: 'robin', title: 'Robin (requester, approver)', approver: true },
  { id: 'UALEX', name: 'alex', title: 'Alex (second approver)', approver: true },
  { id: 'UCASEY', name: 'casey', title: 'Casey (bystander)', approver: false },
];

export const DEMO_APPROVERS: readonly string[] = DEMO_PEOPLE.filter((person) => person.approver).map((person) => person.id);
/** Escalations ping the second approver, as a team would its on-call. */
export const DEMO_ESCALATE_TO = 'UALEX';
