import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";

import { GameService } from "./gen/tabletop/v1/game_service_pb";

const client = createClient(
  GameService,
  createConnectTransport({ baseUrl: location.origin, useBinaryFormat: true }),
);
const app = document.getElementById("app");
if (app) {
  app.textContent = "Tabletop";
  void client;
}
