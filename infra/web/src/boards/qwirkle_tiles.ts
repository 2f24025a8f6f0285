// Qwirkle tiles in SVG and in words: six colours, six shapes, each drawn on a
// dark square as on the wooden tiles.
import { svg } from "../dom";
import { QwirkleColor, QwirkleShape, type QwirkleTile } from "../gen/tabletop/v1/qwirkle_pb";

/** The side of a grid cell in SVG units; shapes are drawn for it and scaled. */
export const CELL = 40;

const COLOURS: Readonly<Record<QwirkleColor, readonly [string, string]>> = {
  [QwirkleColor.UNSPECIFIED]: ["unknown", "#9e9e9e"],
  [QwirkleColor.RED]: ["red", "#e53935"],
  [QwirkleColor.ORANGE]: ["orange", "#fb8c00"],
  [QwirkleColor.YELLOW]: ["yellow", "#fdd835"],
  [QwirkleColor.GREEN]: ["green", "#43a047"],
  [QwirkleColor.BLUE]: ["blue", "#1e88e5"],
  [QwirkleColor.PURPLE]: ["purple", "#ab47bc"],
};

const SHAPES: Readonly<Record<QwirkleShape, string>> = {
  [QwirkleShape.UNSPECIFIED]: "unknown",
  [QwirkleShape.CIRCLE]: "circle",
  [QwirkleShape.CRISSCROSS]: "crisscross",
  [QwirkleShape.DIAMOND]: "diamond",
  [QwirkleShape.SQUARE]: "square",
  [QwirkleShape.STARBURST]: "starburst",
  [QwirkleShape.CLOVER]: "clover",
};

/** Returns a tile in words, colour then shape: "red circle". */
export function tileName(tile: QwirkleTile | undefined): string {
  if (tile === undefined) return "unknown tile";
  return `${COLOURS[tile.color]?.[0] ?? "unknown"} ${SHAPES[tile.shape] ?? "unknown"}`;
}

/** Tells whether two tiles are alike (same colour and shape: the same for every rule). */
export function sameTile(a: QwirkleTile | undefined, b: QwirkleTile | undefined): boolean {
  return a !== undefined && b !== undefined && a.color === b.color && a.shape === b.shape;
}

/** Returns the points of a star around (0, 0), `points` tips, alternating radii. */
function star(points: number, outer: number, inner: number, turn: number): string {
  const corners: string[] = [];
  for (let i = 0; i < points * 2; i++) {
    const radius = i % 2 === 0 ? outer : inner;
    const angle = turn + (Math.PI * i) / points;
    corners.push(`${(radius * Math.sin(angle)).toFixed(2)},${(-radius * Math.cos(angle)).toFixed(2)}`);
  }
  return corners.join(" ");
}

/** Returns the shape centred on (0, 0), for a cell of CELL units. */
function shapeElement(shape: QwirkleShape, fill: string): SVGElement {
  switch (shape) {
    case QwirkleShape.CIRCLE:
      return svg("circle", { r: 12, fill });
    case QwirkleShape.SQUARE:
      return svg("rect", { x: -11, y: -11, width: 22, height: 22, fill });
    case QwirkleShape.DIAMOND:
      return svg("polygon", { points: "0,-15 13,0 0,15 -13,0", fill });
    case QwirkleShape.CRISSCROSS:
      return svg("polygon", { points: star(4, 16, 4.5, Math.PI / 4), fill });
    case QwirkleShape.STARBURST:
      return svg("polygon", { points: star(8, 16, 8, 0), fill });
    case QwirkleShape.CLOVER:
      return svg(
        "g",
        { fill },
        svg("circle", { cx: 0, cy: -7, r: 6.5 }),
        svg("circle", { cx: 7, cy: 0, r: 6.5 }),
        svg("circle", { cx: 0, cy: 7, r: 6.5 }),
        svg("circle", { cx: -7, cy: 0, r: 6.5 }),
        svg("circle", { cx: 0, cy: 0, r: 5 }),
      );
    default:
      return svg("text", { "text-anchor": "middle", "dominant-baseline": "central", fill, "font-size": 18 }, "?");
  }
}

/**
 * Returns a tile drawn in the square at (x, y) of side `size`; `attributes`
 * go on its group (data-piece, data-cell, ...).
 */
export function tileElement(
  tile: QwirkleTile | undefined,
  x: number,
  y: number,
  size: number,
  attributes: Record<string, string | boolean | undefined> = {},
): SVGGElement {
  const colour = tile === undefined ? COLOURS[QwirkleColor.UNSPECIFIED] : (COLOURS[tile.color] ?? COLOURS[0]);
  const shape = tile?.shape ?? QwirkleShape.UNSPECIFIED;
  const inset = size * 0.04;
  return svg(
    "g",
    { class: "tile", ...attributes },
    svg("title", {}, tileName(tile)),
    svg("rect", {
      class: "tile-face",
      x: x + inset,
      y: y + inset,
      width: size - 2 * inset,
      height: size - 2 * inset,
      rx: size * 0.14,
    }),
    svg(
      "g",
      { transform: `translate(${x + size / 2} ${y + size / 2}) scale(${size / CELL})` },
      shapeElement(shape, colour[1]),
    ),
  );
}
