"""Vietnamese patterns. Lines drop "tôi" ("Sống ở Hà Nội", "Thích cà phê sữa đá")."""

import re

from offline.languages.base import Language, Rule
from offline.text import capitalise, tidy

ME = r"(?:tôi|mình|tớ|em)"
NAME = r"(?P<value>[^\d,;:!?()]{1,60})"
RELATIONS = (
    r"vợ|chồng|bạn\s+trai|bạn\s+gái|người\s+yêu|vị\s+hôn\s+phu|vị\s+hôn\s+thê|em\s+gái|em\s+trai|chị\s+gái"
    r"|anh\s+trai|chị|anh|em|mẹ|má|bố|ba|cha|con\s+trai|con\s+gái|con|ông|bà|bạn\s+thân|bạn|sếp|chó|mèo"
    r"|thú\s+cưng|cô|chú|dì|cậu|bác|cháu"
)
JOBS = (
    r"giáo\s+viên|bác\s+sĩ|kỹ\s+sư|y\s+tá|lập\s+trình\s+viên|nhân\s+viên|kế\s+toán|luật\s+sư|nhà\s+báo"
    r"|nhà\s+thiết\s+kế|thiết\s+kế|đầu\s+bếp|công\s+nhân|nông\s+dân|doanh\s+nhân|giảng\s+viên|dược\s+sĩ"
    r"|kiến\s+trúc\s+sư|nhiếp\s+ảnh\s+gia|nhà\s+văn|ca\s+sĩ|diễn\s+viên|quản\s+lý|giám\s+đốc|tài\s+xế"
    r"|nội\s+trợ|phiên\s+dịch|biên\s+tập\s+viên|họa\s+sĩ|nha\s+sĩ|kinh\s+doanh|marketing|IT"
)

RULES = [
    # Self-introduction: "Tên tôi là Nguyễn Thị Mai", "Tôi tên là Mai", saved as "Tên là …".
    Rule("name", rf"(?:tên\s+(?:của\s+)?{ME}|{ME}\s+tên|tên)(?:\s+là|:)?\s+{NAME}", "Tên là {value}",
         name=True),
    Rule("nickname", rf"(?:cứ\s+|hãy\s+)?gọi\s+{ME}\s+là\s+{NAME}", "Muốn được gọi là {value}", name=True),
    Rule("nickname", rf"muốn\s+được\s+gọi\s+là\s+{NAME}", "Muốn được gọi là {value}", name=True),
    Rule("name", rf"{ME}\s+là\s+(?P<value>[^\W\d_][^\s,]*(?:\s+[^\W\d_][^\s,]*){{0,3}})", "Tên là {value}",
         capital=True, greeting=True, name=True),
    Rule("personal", r"(?P<attr>sinh\s+nhật|ngày\s+sinh)(?:\s+của)?\s+{MY}(?:là"
                     r"|vào(?:\s+ngày)?)\s+(?P<value>.+)", "{attr} là {value}"),
    Rule("personal", r"(?:năm\s+nay\s+)?(?:{I})?(?:năm\s+nay\s+)?(?P<value>\d{1,3})\s+tuổi", "{value} tuổi"),
    # Where they live.
    Rule("home", r"(?:{I})?(?:hiện\s+)?(?:(?:vẫn\s+)?đang\s+)?sống\s+(?P<prep>ở|tại)\s+(?P<value>.+)",
         "Sống {prep} {value}"),
    Rule("home", r"(?:nhà\s+(?:tôi|mình)|(?:tôi|mình)|nhà)\s+ở\s+(?P<value>[^\W\d_].*)", "Sống ở {value}",
         capital=True),
    Rule("home", r"(?:{I})?(?:đã\s+|vừa\s+|mới\s+)?(?:chuyển|dọn)\s+(?:nhà\s+)?(?:từ\s+.+?\s+)?(?:đến|tới"
                 r"|về|vào|vô|ra)\s+(?P<value>.+?)(?:\s+sống)?(?:\s+rồi)?", "Sống ở {value}"),
    Rule("origin", r"(?:{I})?(?:đến|tới)\s+từ\s+(?P<value>.+)", "Đến từ {value}"),
    Rule("origin", r"(?:{I})?(?:là\s+)?người\s+(?P<value>[^\W\d_].*)", "Là người {value}", capital=True),
    # Work and study.
    Rule("workplace", r"(?:{I})?(?:đang\s+)?làm(?:\s+việc)?\s+(?P<prep>ở|tại|cho)\s+(?P<value>.+)",
         "Làm việc {prep} {value}"),
    Rule("role", r"(?:nghề(?:\s+nghiệp)?|công\s+việc)(?:\s+của)?\s+{MY}(?:là|:)\s*(?P<value>.+)",
         "Nghề nghiệp là {value}"),
    Rule("study", r"(?:{I})?(?:là\s+|đang\s+là\s+)?(?P<value>(?:sinh\s+viên|học\s+sinh"
                  r"|nghiên\s+cứu\s+sinh)\b.*)",
         "Là {value}"),
    Rule("role", rf"(?:{{I}})?(?:đang\s+)?làm\s+(?:nghề\s+)?(?P<value>(?:{JOBS})\b.*)", "Làm {value}"),
    Rule("role", r"(?:{I})?(?:đã\s+|mới\s+|vừa\s+)?chuyển\s+sang\s+làm\s+(?P<value>.+?)(?:\s+rồi)?",
         "Làm {value}"),
    # "mình làm data analyst ở Grab": a job title in English, then where.
    Rule("role", r"(?:{I})?(?:đang\s+)?làm\s+(?P<value>(?:[A-Za-z][\w&/-]*\s+){0,3}[A-Za-z][\w&/-]{2,}"
                 r"\s+(?:ở|tại"
                 r"|cho)\s+.+)", "Làm {value}"),
    Rule("role", rf"(?:{{I}})?(?:là\s+)(?:một\s+)?(?P<value>(?:{JOBS})\b.*)", "Là {value}"),
    Rule("study", r"(?:{I})?(?:đang\s+)?học\s+(?P<prep>ở|tại)\s+(?P<value>.+)", "Học {prep} {value}"),
    Rule("learning", r"(?:{I})?(?:đang\s+)?học\s+(?!được|xong|bài|hỏi)(?P<value>.+)", "Đang học {value}"),
    Rule("diet", r"(?:{I})?(?:là\s+người\s+|ăn\s+)(?P<value>chay|thuần\s+chay)", "Ăn {value}"),
    # Family: "Vợ tôi tên là Hoa" → "Vợ tên là Hoa"; "Sinh nhật em gái tôi là 12/3".
    Rule("family", rf"(?P<attr>sinh\s+nhật|tên|ngày\s+sinh|tuổi"
                   rf"|nghề)\s+(?:của\s+)?(?P<rel>{RELATIONS})(?:\s+(?:của\s+)?{ME})?\s+(?P<la>là"
                   rf"|vào(?:\s+ngày)?)\s+(?P<value>.+)",
         "{attr} {rel} {la} {value}"),
    Rule("family", rf"(?P<rel>{RELATIONS})\s+{{MY}}(?P<value>(?P<verb>tên|là|sống|làm|học|thích|đang|có"
                   r"|sinh|ở|\S+)\b.*)", "{rel} {value}"),
    Rule("has", r"(?:{I})?(?:mới\s+|vừa\s+)?có\s+(?P<value>(?:em\s+bé|bé|con\s+(?:trai|gái))\b.*)",
         "Có {value}"),
    Rule("has", rf"(?:{{I}})?có\s+(?P<value>(?:một|hai|ba|bốn|năm|sáu|\d+)\s+(?:đứa\s+|người\s+"
                rf"|bé\s+)?(?P<rel>{RELATIONS}|nhỏ|nhóc)\b.*)", "Có {value}"),
    Rule("status", r"(?:{I})?(?P<value>(?:đã\s+)?(?:kết\s+hôn|lập\s+gia\s+đình|có\s+gia\s+đình|ly\s+hôn"
                   r"|độc\s+thân|đính\s+hôn)\b.*)", "{value}"),
    # Tastes: "X yêu thích của tôi là Y" before plain "thích".
    Rule("favourite", rf"(?P<thing>\S.{{0,30}}?)\s+yêu\s+thích(?:\s+nhất)?(?:\s+của\s+{ME}|\s+{ME})?\s+là"
                      r"\s+(?P<value>.+)", "{thing} yêu thích là {value}"),
    Rule("preference", r"(?:{I})?thích\s+(?P<value>.+\s+hơn\s+.+)", "Thích {value}"),
    Rule("dislike", r"(?:{I})?(?:rất\s+|cực\s+kỳ\s+)?(?P<verb>không\s+thích|chẳng\s+thích|ghét|sợ"
                    r"|không\s+ưa|không\s+ăn\s+được)\s+(?P<value>.+?)(?:\s+lắm)?", "{verb} {value}"),
    Rule("like", r"(?:{I})?(?:rất\s+|cực\s+kỳ\s+|vô\s+cùng\s+|khá\s+|cũng\s+)?(?P<verb>thích|yêu|mê|ghiền"
                 r"|nghiện|hâm\s+mộ)\s+(?P<value>.+?)(?:\s+lắm|\s+nhất)?", "{verb} {value}"),
    # Something under way: "đang chuẩn bị cưới".
    Rule("ongoing", r"(?:{I})?đang\s+(?P<value>(?:chuẩn\s+bị|lên\s+kế\s+hoạch|tìm|xây|sửa|ôn\s+thi"
                    r"|luyện\s+thi|tiết\s+kiệm)\b.+)", "Đang {value}"),
    # Goals.
    Rule("goal", r"(?P<g>mục\s+tiêu|ước\s+mơ|kế\s+hoạch|dự\s+định)(?:\s+của)?\s+{MY}(?:là|:)\s*(?P<value>.+)",
         "{g} là {value}"),
    Rule("goal", r"(?:{I})?(?P<verb>muốn\s+trở\s+thành|mơ\s+ước\s+trở\s+thành|ước\s+mơ\s+trở\s+thành"
                 r"|dự\s+định|có\s+kế\s+hoạch|đang\s+lên\s+kế\s+hoạch|đang\s+cố\s+gắng|quyết\s+tâm"
                 r"|muốn\s+học|muốn\s+chuyển\s+đến)\s+(?P<value>.+)", "{verb} {value}"),
]


def prefers(order: str) -> str:
    """"lúc nào cũng trả lời mình bằng tiếng Việt" → "Muốn được trả lời bằng tiếng Việt"."""
    text = re.sub(r"\b(?:luôn\s+luôn|luôn|lúc\s+nào\s+cũng|từ\s+giờ(?:\s+trở\s+đi)?|từ\s+nay|từ\s+bây\s+giờ"
                  r"|hãy"
                  r"|nhé|nha|giùm|giúp)\b", " ", order, flags=re.IGNORECASE)
    text = tidy(re.sub(r"\s+", " ", re.sub(rf"\b(?:cho\s+)?{ME}\b", " ", text, flags=re.IGNORECASE)))
    if re.match(r"(?:trả\s+lời|phản\s+hồi|nói|viết|gọi|xưng)\b", text, re.IGNORECASE):
        return f"Muốn được {text}"
    return f"Muốn {text}" if text else ""


def about_user(text: str) -> str:
    text = tidy(text)
    text = re.sub(r"^(?:rằng|là)\s+", "", text, flags=re.IGNORECASE)
    text = re.sub(rf"^{ME}\s+", "", text, flags=re.IGNORECASE)
    return capitalise(text)


VIETNAMESE = Language(
    code="vi",
    script="latin",
    be=r"\b(?:là|có|đang|bị|được)\b",
    subject=rf"(?:nhà\s+|bọn\s+|tụi\s+|chúng\s+|vợ\s+chồng\s+)?{ME}\s+|chúng\s+tôi\s+|người\s+dùng\s+",
    possessive=rf"(?:của\s+)?{ME}\s+",
    relations=RELATIONS,
    rules=RULES,
    lead_in=r"^(?:thì|ủa|khoan|trời\s+ơi|thật\s+ra|thực\s+ra|à\s+mà|à|ừ|ờ|ồ|ôi|chào\s+bạn|xin\s+chào|chào|nhân\s+tiện|mà|với\s+lại"
            r"|còn|xin\s+lỗi|nhầm|sửa\s+lại|ok|vâng|dạ|hi|hello)\b[\s,.:!-]*",
    clause_split=r"\s*;\s*|\s*[—–]\s*|\s+mà\s+(?=\S)|,?\s+(?:và|nhưng|còn)\s+(?=(?:tôi|mình|tớ|làm|sống|học|thích|ghét|đang|có)\b)"
                 r"|,\s*(?=(?:tôi|mình|tớ|(?:hãy\s+)?(?:nhớ|ghi\s+nhớ|đừng\s+quên|quên|lưu)|sống|làm|học"
                 r"|thích|ghét|có|đang|hiện|năm\s+nay|đừng|hãy|\d)\b)",
    correcting=r"^(?:thật\s+ra|thực\s+ra|xin\s+lỗi|nhầm|sửa\s+lại|không)\b",
    health=r"\b(?:bệnh|tiểu\s+đường|đái\s+tháo\s+đường|dị\s+ứng|hen\s+suyễn|trầm\s+cảm|lo\s+âu|ung\s+thư"
           r"|thuốc|chẩn\s+đoán|phẫu\s+thuật|mang\s+thai|có\s+bầu|huyết\s+áp|điều\s+trị|cân\s+nặng"
           r"|giảm\s+cân|ốm|bị\s+đau|mỡ\s+máu)\b",
    money=r"\b(?:lương|thu\s+nhập|nợ|vay|tiết\s+kiệm|ngân\s+hàng|đầu\s+tư|cổ\s+phiếu|thẻ\s+tín\s+dụng"
          r"|ngân\s+sách|tiền\s+nhà)\b|\d+\s*(?:triệu|tỷ|nghìn|ngàn|đồng|k|vnđ|vnd|usd)\b|₫",
    app=r"\b(?:whizi|ứng\s+dụng|app|chatbot|trợ\s+lý|giao\s+diện|mô\s+hình|tính\s+năng|chatgpt|gpt"
        r"|claude)\b|câu\s+trả\s+lời\s+của\s+bạn",
    style=r"\b(?:trả\s+lời|phản\s+hồi|nói\s+chuyện\s+(?:như|kiểu|bằng)|xưng\s+hô|giọng\s+văn|định\s+dạng"
          r"|gạch\s+đầu\s+dòng|cướp\s+biển|biểu\s+tượng\s+cảm\s+xúc|emoji)\b",
    directive=r"^(?:luôn(?:\s+luôn)?|hãy|từ\s+giờ|từ\s+nay|trả\s+lời|phản\s+hồi|đừng|không\s+được"
              r"|bạn\s+phải)\b",
    asked=r"^(?:đã\s+hỏi|từng\s+hỏi|hỏi\s+về)\b",
    colours=r"đỏ|cam|vàng|xanh\s+lá|xanh\s+dương|xanh\s+lam|tím|hồng|nâu|đen|trắng|xám",
    not_names=r"(?:người|Việt|Nam)\b",
    injection=r"\b(?:bỏ\s+qua|phớt\s+lờ|quên)\b.{0,20}\b(?:hướng\s+dẫn|chỉ\s+dẫn|quy\s+tắc|lệnh)\b"
              r"|\bbây\s+giờ\s+bạn\s+là\b|\bđóng\s+vai\b|\blời\s+nhắc\s+hệ\s+thống\b|\bjailbreak\b"
              r"|\bchế\s+độ\s+nhà\s+phát\s+triển\b|^\s*system\s*:",
    standing=r"\b(?:luôn|luôn\s+luôn|lúc\s+nào\s+cũng|từ\s+giờ|từ\s+nay|từ\s+bây\s+giờ|mỗi\s+lần"
             r"|trong\s+mọi\s+cuộc\s+trò\s+chuyện|mặc\s+định|thích\s+.+\s+hơn)\b",
    temporary=r"\b(?:hôm\s+nay|tối\s+nay|sáng\s+nay|chiều\s+nay|tuần\s+này|hôm\s+qua|ngày\s+mai|lúc\s+này"
              r"|vừa\s+nãy|(?<!từ\s)bây\s+giờ)\b",
    joke=r"\b(?:đùa|giỡn|haha|hihi|thử\s+thôi|thử\s+xem|chỉ\s+lần\s+này|cướp\s+biển)\b",
    hypothetical=r"^(?:nếu|giả\s+sử|giả\s+như|tưởng\s+tượng)\b",
    question=r"\?\s*$|\b(?:không|chưa|chứ|nhỉ|hả|sao|gì|nào)$|^(?:ai|gì|đâu|sao|tại\s+sao|bao\s+giờ"
             r"|khi\s+nào|làm\s+sao|như\s+thế\s+nào|có\s+phải)\b",
    passing=r"^(?:nó|cái\s+này|cái\s+đó|cái\s+kia|điều\s+này|điều\s+đó|ý\s+này|ý\s+đó|bạn|cậu"
            r"|câu\s+trả\s+lời|anh|em|chị)(?:\s.*)?$|\bbạn\b(?!\s+(?:bè|trai|gái|thân|học|cùng))",
    scene=r"\b(?:trong|ở)\s+(?:cảnh|phân\s+cảnh|chương|màn)\b",
    story=r"\b(?:trong|với|cho|ở)\s+(?:câu\s+chuyện|truyện|phiên\s+bản|vũ\s+trụ|thế\s+giới"
          r"|chuyện)\b.{0,40}?\b(?:này|đó)\b",
    corrections=[
        r"\bkhông\s+phải(?:\s+là)?\s+(?P<old>\w+(?:\s\w+){0,2}?)\s*[,;—–-]*\s*(?:mà\s+là|mà"
        r"|,)\s*(?:là\s+)?(?P<new>\w+(?:\s\w+){0,2})$",
        r"(?P<new>\w+(?:\s\w+)?)\s*,?\s*(?:chứ|,)\s*không\s+phải(?:\s+là)?\s+(?P<old>\w+(?:\s\w+)?)$",
    ],
    filler=r"nơi|đâu|chỗ|tôi|mình|tớ|em|của|là|ở|về|rằng|điều|đó|này|cái|những|gì|đi|nhé",
    memory_question=r"\b(?:bạn|cậu|em|anh|chị)\s+(?:còn\s+)?(?:nhớ|biết)\s+(?:gì|những\s+gì"
                    r"|điều\s+gì)\s+về\s+(?:tôi|mình|em|tớ)|\b(?:bạn|cậu)\s+(?:còn\s+)?nhớ\s+(?:tôi"
                    r"|mình)\s+không|\b(?:bạn|cậu)\s+đã\s+(?:ghi\s+nhớ|lưu)\s+(?:gì|những\s+gì)"
                    r"|\btên\s+(?:tôi|mình)\s+là\s+gì|\b(?:tôi|mình)\s+tên\s+(?:là\s+)?gì"
                    r"|\bbạn\s+nhớ\s+những\s+gì",
    greeting=r"^(?:xin\s+chào|chào|hello|hi|alo)\b",
    thanks=r"\b(?:cảm\s+ơn|cám\s+ơn|thanks)\b",
    standing_label="Sở thích lâu dài: ",
    about_user=about_user,
    trailing=r"\s+(?:nhé|nha|nhá|ạ|đó|nữa|luôn|rồi)$",
    change=r"\b(?:tròn|bắt\s+đầu|chuyển|dọn|vào\s+lớp|tốt\s+nghiệp|cưới|nhận\s+việc)\b",
    kidding=r"\b(?:đùa(?:\s+thôi)?|giỡn)\b",
    when=r"\b(?:hồi\s+)?(?:tháng|tuần|năm)\s+(?:trước|rồi|ngoái)\b|\bhôm\s+trước\b|\b(?:dạo|hồi)\s+này\b"
         r"|\bgần\s+đây\b|\bhiện\s+(?:tại|giờ|nay)\b|\bnăm\s+nay\b|\bmới\s+đây\b"
         r"|\b(?:được|đã)\s+(?:\d+|một|hai|ba|bốn|năm|mấy)\s+(?:năm|tháng|tuần)(?:\s+(?:rồi|nay))?",
    ended=[rf"(?:{ME}\s+)?(?:với|và)\s+(?P<who>.+?)\s+(?:đã\s+)?(?:chia\s+tay|ly\s+hôn)\b.*",
           rf"(?:{ME}\s+)?(?:đã\s+)?(?:chia\s+tay|ly\s+hôn)\s+(?:với\s+)?(?P<who>[^\W\d_].*?)(?:\s+rồi)?",
           rf"(?:{ME}\s+)?(?:đã\s+)?(?:nghỉ\s+việc|nghỉ\s+làm)\s+(?:ở|tại)\s+(?P<who>[^,]+?)(?:\s+rồi)?(?:,.*)?"],
    no_longer=r"\bkhông\s+còn\b|\bnữa\b",
    negators=r"\b(?:không\s+còn|không|nữa)\b",
    fillers=r"ờ+|ừm+|ơ+",
    bound=r"\b(?:ở|tại|của|và|với)",
    repair=r"à\s+không|à\s+nhầm|ý\s+(?:mình|tôi)\s+là|nhầm",
    noise=r"rè\s*rè|xẹt|nghe\s+không\s+rõ|không\s+nghe\s+rõ|gì\s+đó|mà\s+thôi|sóng\s+yếu|mất\s+sóng",
    particles=r"á|nha|nhé|nhá|ạ|mà|đó|nè|hen|ha",
    polite=r"^(?:bạn\s+)?(?:có\s+thể|làm\s+ơn)\s+",
    slots={
        "home": r"\b(?:sống|chuyển\s+(?:nhà|đến|tới|về|vào|vô|ra)|dọn\s+(?:nhà|đến|tới|về|vào|vô|ra))\b",
        "work": r"\b(?:làm|đi\s+làm|công\s+ty|nghề)\b",
        "study": r"\b(?:học|trường|lớp|mẫu\s+giáo|đại\s+học|tốt\s+nghiệp)\b",
        "age": r"\b\d+\s+tuổi\b",
        "status": r"\b(?:kết\s+hôn|cưới|ly\s+hôn|đính\s+hôn|độc\s+thân)\b",
        "like": r"\b(?:thích|mê|ghét|yêu)\b",
    },
    prefers=prefers,
    meat=r"\b(?:thịt|cá|hải\s+sản|gà|bò|heo|lợn)\b",
    vegetarian=r"\bchay\b",
    named=r"\btên\b",
    dated=r"\btháng\s+\d+|\d+/\d+",
    replies={
        "notice": "Tôi là mô hình ngoại tuyến của Whizi: máy chủ này chưa cấu hình mô hình trò chuyện nào, "
                  "nên tôi không thể trả lời câu hỏi hay biết gì ngoài cuộc trò chuyện này.",
        "hint": "Hãy hỏi tôi “bạn nhớ gì về tôi?” để xem Whizi đã lưu những gì.",
        "greet": "Xin chào{name}!",
        "greet_name": " {name}",
        "nice": "Rất vui được gặp bạn, {name}!",
        "thanks": "Không có gì!",
        "memory": "Đây là những gì tôi ghi nhớ về bạn:",
        "memory_empty": "Tôi chưa ghi nhớ điều gì về bạn.",
        "request": "Bộ nhớ của Whizi được cập nhật ở chế độ nền sau câu trả lời này, nên tôi chưa thể xác n"
                   "hận "
                   "ở đây những gì được giữ lại. Bạn có thể xem trong Cài đặt, mục “Những gì Whizi ghi nhớ”.",
        "forget": "Bộ nhớ của Whizi được cập nhật ở chế độ nền sau câu trả lời này. Bạn có thể xem hoặc xóa "
                  "nó trong Cài đặt, mục “Những gì Whizi ghi nhớ”.",
    },
)
