// What a rule of the judge finds: one broken rule, with the requirement it breaks.

export interface Problem {
  requirement: string;
  message: string;
}
