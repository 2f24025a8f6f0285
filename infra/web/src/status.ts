// The line of messages under the page's header (#status): what the page is
// doing, and refusals in words with their code and ErrorInfo reason.
import { Code } from "@connectrpc/connect";

import type { Refusal } from "./api";
import { byId } from "./dom";

const status = byId("status");

/** How long a message that is not an error stays. */
const INFO_MS = 6000;
let fading: number | undefined;

/** Shows a message (`kind` "error" for failures, which stay until the next message); "" clears the line. */
export function setStatus(text: string, kind: "info" | "error" = "info"): void {
  window.clearTimeout(fading);
  if (kind === "info" && text !== "") fading = window.setTimeout(() => setStatus(""), INFO_MS);
  status.textContent = text;
  status.dataset["kind"] = text === "" ? "" : kind;
  delete status.dataset["code"];
  delete status.dataset["reason"];
}

/** Shows a refused call: its words, with `data-code` (e.g. "failed_precondition") and `data-reason` (the ErrorInfo reason). */
export function showRefusal(refused: Refusal): void {
  setStatus(refused.text, "error");
  status.dataset["code"] = Code[refused.code].replace(/[A-Z]/g, (c, i: number) => (i === 0 ? c : `_${c}`)).toLowerCase();
  status.dataset["reason"] = refused.reason;
}
