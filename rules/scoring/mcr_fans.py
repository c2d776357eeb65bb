"""The 81 fans of the Chinese Official rules (国标, MCR) in PyMahjongGB's order, plus the
calculator's one extension (明暗杠), as (Chinese, English, points)."""

from __future__ import annotations

FANS: tuple[tuple[str, str, int], ...] = (
    ("大四喜", "Big Four Winds", 88), ("大三元", "Big Three Dragons", 88),
    ("绿一色", "All Green", 88), ("九莲宝灯", "Nine Gates", 88), ("四杠", "Four Kongs", 88),
    ("连七对", "Seven Shifted Pairs", 88), ("十三幺", "Thirteen Orphans", 88),
    ("清幺九", "All Terminals", 64), ("小四喜", "Little Four Winds", 64),
    ("小三元", "Little Three Dragons", 64), ("字一色", "All Honors", 64),
    ("四暗刻", "Four Concealed Pungs", 64), ("一色双龙会", "Pure Terminal Chows", 64),
    ("一色四同顺", "Quadruple Chow", 48), ("一色四节高", "Four Pure Shifted Pungs", 48),
    ("一色四步高", "Four Pure Shifted Chows", 32), ("三杠", "Three Kongs", 32),
    ("混幺九", "All Terminals and Honors", 32),
    ("七对", "Seven Pairs", 24), ("七星不靠", "Greater Honors and Knitted Tiles", 24),
    ("全双刻", "All Even Pungs", 24), ("清一色", "Full Flush", 24),
    ("一色三同顺", "Pure Triple Chow", 24), ("一色三节高", "Pure Shifted Pungs", 24),
    ("全大", "Upper Tiles", 24), ("全中", "Middle Tiles", 24), ("全小", "Lower Tiles", 24),
    ("清龙", "Pure Straight", 16), ("三色双龙会", "Three-Suited Terminal Chows", 16),
    ("一色三步高", "Pure Shifted Chows", 16), ("全带五", "All Five", 16),
    ("三同刻", "Triple Pung", 16), ("三暗刻", "Three Concealed Pungs", 16),
    ("全不靠", "Lesser Honors and Knitted Tiles", 12), ("组合龙", "Knitted Straight", 12),
    ("大于五", "Upper Four", 12), ("小于五", "Lower Four", 12),
    ("三风刻", "Big Three Winds", 12),
    ("花龙", "Mixed Straight", 8), ("推不倒", "Reversible Tiles", 8),
    ("三色三同顺", "Mixed Triple Chow", 8), ("三色三节高", "Mixed Shifted Pungs", 8),
    ("无番和", "Chicken Hand", 8), ("妙手回春", "Last Tile Draw", 8),
    ("海底捞月", "Last Tile Claim", 8), ("杠上开花", "Out with Replacement Tile", 8),
    ("抢杠和", "Robbing The Kong", 8),
    ("碰碰和", "All Pungs", 6), ("混一色", "Half Flush", 6),
    ("三色三步高", "Mixed Shifted Chows", 6), ("五门齐", "All Types", 6),
    ("全求人", "Melded Hand", 6), ("双暗杠", "Two Concealed Kongs", 6),
    ("双箭刻", "Two Dragons Pungs", 6),
    ("全带幺", "Outside Hand", 4), ("不求人", "Fully Concealed Hand", 4),
    ("双明杠", "Two Melded Kongs", 4), ("和绝张", "Last Tile", 4),
    ("箭刻", "Dragon Pung", 2), ("圈风刻", "Prevalent Wind", 2), ("门风刻", "Seat Wind", 2),
    ("门前清", "Concealed Hand", 2), ("平和", "All Chows", 2), ("四归一", "Tile Hog", 2),
    ("双同刻", "Double Pung", 2), ("双暗刻", "Two Concealed Pungs", 2),
    ("暗杠", "Concealed Kong", 2), ("断幺", "All Simples", 2),
    ("一般高", "Pure Double Chow", 1), ("喜相逢", "Mixed Double Chow", 1),
    ("连六", "Short Straight", 1), ("老少副", "Two Terminal Chows", 1),
    ("幺九刻", "Pung of Terminals or Honors", 1), ("明杠", "Melded Kong", 1),
    ("缺一门", "One Voided Suit", 1), ("无字", "No Honors", 1),
    ("独听・边张", "Edge Wait", 1), ("独听・嵌张", "Closed Wait", 1),
    ("独听・单钓", "Single Wait", 1), ("自摸", "Self-Drawn", 1),
    ("花牌", "Flower Tiles", 1),
    ("明暗杠", "Concealed Kong and Melded Kong", 5),
)
FLOWER_FAN = "花牌"
MINIMUM = 8     # 起和分: "和牌必须达到的最低分数(8分)。花牌分不计在起和分内" (rule book)
BASE = 8        # 底分: "未和牌方必须向和牌方所付的分数分值为8分"
BY_NAME = {zh: (zh, en, points) for zh, en, points in FANS}
