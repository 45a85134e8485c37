export interface ScheduleRecord {
  id: string;
  cron: string;
  timeZone: string;
  task: string;
  channel: string;
  createdBy: string;
  runbookId: string | null;
  enabled: boolean;
  createdAt: Date;
}

export interface NewSchedule {
  cron: string;
  timeZone: string;
  task: string;
  channel: string;
  createdBy: string;
  runbookId?: string | null;
}

/** Stored schedules and the slots fired from them, shared by every replica. Implemented in src/store. */
export interface SchedulesPort {
  insert(input: NewSchedule): Promise<ScheduleRecord>;
  get(id: string): Promise<ScheduleRecord | undefined>;
  /** Oldest first, so a list reads in the order the schedules were made. */
  list(filter?: { channel?: string; createdBy?: string; enabledOnly?: boolean }): Promise<ScheduleRecord[]>;
  /** Its fired slots go with it. False when there was no such schedule. */
  remove(id: string): Promise<boolean>;
  /** True for exactly one caller per (schedule, slot) across replicas; false too when the schedule was removed meanwhile. */
  claimFire(scheduleId: string, slot: Date, replicaId: string): Promise<boolean>;
  /** Links a fired slot to the run it started. */
  recordFireRun(scheduleId: string, slot: Date, runId: string): Promise<void>;
  /** The latest slot fired per schedule: the lower bound for catching up what every replica missed. */
  lastFiredSlots(): Promise<Map<string, Date>>;
  /** Forgets fires older than `before`, except each schedule's latest; returns how many went. */
  pruneFires(before: Date): Promise<number>;
}
