import type { TTicketFinding } from "@posture/ticketing";

export function sampleFinding(overrides: Partial<TTicketFinding> = {}): TTicketFinding {
  return {
    id: "fnd_01HZX3",
    title: "Public link",
    severity: "HIGH",
    resourceName: "Payroll.xlsx",
    connectorType: "google_workspace",
    detectedAt: "2025-03-14T09:26:53.000Z",
    link: "https://posture.example.com/findings/fnd_01HZX3",
    ...overrides,
  };
}
