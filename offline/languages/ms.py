"""Malay patterns. Lines drop "saya" ("Tinggal di Shah Alam", "Adik bernama Aisyah")."""

import re

from offline.languages.base import Language, Rule
from offline.text import capitalise, tidy

ME = r"(?:saya|aku|sy)"
NAME = r"(?P<value>[^\d,;:!?()]{1,60})"
RELATIONS = (
    r"teman\s+lelaki|teman\s+wanita|kekasih|tunang|isteri|suami|adik\s+perempuan|adik\s+lelaki|adik|kakak"
    r"|abang|emak|mak|ibu|ayah|bapa|abah|anak\s+lelaki|anak\s+perempuan|anak-anak|anak|nenek|datuk|atuk"
    r"|kawan\s+baik|kawan|sahabat|bos|majikan|kucing|anjing|arnab"
)

JOBS = (
    r"cikgu|guru|jururawat|doktor|jurutera|peguam|akauntan|pensyarah|polis|pemandu|tukang\s+masak|chef|pereka"
    r"|pengurus|kerani|juruteknik|usahawan|peniaga|suri\s+rumah|programmer|askar|ahli\s+farmasi|farmasis"
)

RULES = [
    # Self-introduction: "Nama saya Siti Aminah" → "Nama: Siti Aminah".
    Rule("name", rf"nama\s*{{MY}}(?:ialah|adalah|:)?\s*{NAME}", "Nama: {value}", name=True),
    Rule("name", rf"(?:{{I}})?bernama\s+{NAME}", "Nama: {value}", name=True),
    Rule("nickname", rf"(?:tolong\s+)?panggil\s+(?:{ME}\s+)?{NAME}", "Suka dipanggil {value}", name=True),
    Rule("nickname", rf"suka\s+dipanggil\s+{NAME}", "Suka dipanggil {value}", name=True),
    Rule("personal", r"(?P<attr>hari\s+jadi|tarikh\s+lahir)\s+{MY}(?:ialah\s+|adalah\s+|pada\s+"
                     r"|:\s*)*(?P<value>.+)", "{attr}: {value}"),
    Rule("personal", r"(?:{I})?(?:berumur|berusia|umur)\s+(?P<value>\d{1,3}(?:\s+tahun)?)",
         "Berumur {value}"),
    # Where they live.
    Rule("home", r"(?:{I})?(?:sekarang\s+|kini\s+)?(?P<verb>tinggal|menetap|duduk"
                 r"|bermastautin)\s+(?:di|kat|dekat)\s+(?P<value>.+)",
         "{verb} di {value}"),
    Rule("home", r"(?:{I})?(?:sudah\s+|dah\s+|baru\s+|telah\s+)?(?:pindah"
                 r"|berpindah)(?:\s+rumah)?\s+(?:dari\s+.+?\s+)?ke\s+(?P<value>.+)",
         "Tinggal di {value}"),
    Rule("origin", r"(?:{I})?berasal\s+dari\s+(?P<value>.+)", "Berasal dari {value}"),
    Rule("origin", r"(?:{I})?(?:orang|anak\s+jati)\s+(?P<value>.+)", "Orang {value}", capital=True),
    # Work and study.
    Rule("study", r"(?:{I})?(?:ialah\s+|adalah\s+)?(?:seorang\s+)?(?P<value>(?:pelajar|mahasiswa|mahasiswi"
                  r"|penuntut)\b.*)", "{value}"),
    Rule("role", r"(?:{I})?(?:bekerja|kerja)\s+sebagai\s+(?P<value>.+)", "Bekerja sebagai {value}"),
    Rule("workplace", r"(?:{I})?(?:bekerja|kerja)\s+(?P<prep>di|kat|dengan|untuk)\s+(?P<value>.+)",
         "Bekerja {prep} {value}"),
    Rule("role", r"pekerjaan\s+{MY}(?:ialah\s+|adalah\s+|:\s*)?(?P<value>.+)", "Pekerjaan: {value}"),
    Rule("role", r"(?:{I})?(?:ialah\s+|adalah\s+)?(?:seorang|seorg)\s+(?P<value>.+)", "Seorang {value}"),
    Rule("role", rf"(?:{{I}})?(?:ialah\s+|adalah\s+)?(?P<value>(?:{JOBS})\b.*)", "Seorang {value}"),
    Rule("role", r"(?:{I})?(?:sedang\s+|tengah\s+)?(?:buat|jalankan|ada|menjalankan)\s+(?P<value>(?:bisnes"
                 r"|perniagaan"
                 r"|business|kedai)\b.+)", "Buat {value}"),
    # Degrees: "tengah buat ijazah sarjana muda perakaunan kat UiTM".
    Rule("study", r"(?:{I})?(?:sedang\s+|tengah\s+)?(?:buat|ambil|mengambil|sambung)\s+(?P<value>(?:ijazah"
                  r"|diploma"
                  r"|master|sarjana|phd|degree|kursus|asasi|matrik)\b.+)", "Sedang buat {value}"),
    # Something under way: "tengah sibuk persiapan kahwin".
    Rule("ongoing", r"(?:{I})?(?:sedang|tengah)\s+(?:sibuk\s+)?(?P<value>(?:persiapan|menyiapkan|siapkan|cari"
                    r"|mencari|renovate|ubah\s+suai|bina)\b.+)", "Sedang {value}"),
    Rule("study", r"(?:{I})?(?:sedang\s+)?(?:belajar|menuntut"
                  r"|kuliah)\s+(?P<prep>di|kat|dekat)\s+(?P<value>.+)", "Belajar {prep} {value}"),
    Rule("learning", r"(?:{I})?(?:sedang\s+)?belajar\s+(?P<value>.+)", "Sedang belajar {value}"),
    Rule("diet", r"(?:{I})?(?:seorang\s+)?(?P<value>vegetarian|vegan)", "{value}"),
    Rule("diet", r"(?:{I})?(?:tidak|tak)\s+makan\s+(?P<value>.+)", "Tidak makan {value}"),
    # Family: "Adik saya bernama Aisyah" → "Adik bernama Aisyah"; "Hari jadi adik saya ialah 12 Mac".
    Rule("family", rf"(?P<attr>hari\s+jadi|tarikh\s+lahir|nama|umur"
                   rf"|pekerjaan)\s+(?P<rel>{RELATIONS})\s+{{MY}}(?P<value>(?:ialah\s+|adalah\s+|pada\s+"
                   rf"|ialah\s+pada\s+)?.+)", "{attr} {rel} {value}"),
    Rule("family", rf"(?P<rel>{RELATIONS})\s+{{MY}}(?:nama|bernama)\s+(?:dia\s+)?{NAME}",
         "{rel} bernama {value}", name=True),
    Rule("family", rf"(?P<rel>{RELATIONS})\s+{{MY}}(?P<value>(?P<verb>\S+)\b.*)", "{rel} {value}"),
    Rule("has", rf"(?:{{I}})?(?:ada|mempunyai|punya)\s+(?P<value>(?:seorang|sepasang|dua|tiga|empat|lima"
                rf"|\d+|se)\s*(?:orang\s+|ekor\s+)?(?P<rel>{RELATIONS})\b.*)", "Ada {value}"),
    Rule("status", r"(?:{I})?(?P<value>(?:sudah|dah|telah)\s+berkahwin|bujang|belum\s+berkahwin"
                   r"|(?:sudah|dah)\s+bertunang|bercerai|berkahwin)(?P<rest>.*)", "{value}{rest}"),
    # Tastes: favourites and "lebih suka" before plain "suka".
    Rule("favourite", r"(?P<thing>[^\d,]{2,30}?)\s+kegemaran(?:\s+{MY})?(?:ialah\s+|adalah\s+"
                      r"|:\s*)?(?P<value>.+)", "{thing} kegemaran: {value}"),
    Rule("preference", r"(?:{I})?lebih\s+(?:suka|gemar)\s+(?P<value>.+)", "Lebih suka {value}"),
    Rule("dislike", r"(?:{I})?(?P<verb>tidak\s+suka|tak\s+suka|kurang\s+suka|tidak\s+gemar|benci|membenci"
                    r"|tak\s+minat|tidak\s+minat)\s+(?:akan\s+)?(?P<value>.+)", "{verb} {value}"),
    Rule("like", r"(?:{I})?(?:sangat\s+|amat\s+|memang\s+|betul-betul\s+|juga\s+)?(?P<verb>suka|gemar|minat"
                 r"|meminati|menyukai|sayang|cinta)\s+(?:akan\s+)?(?P<value>.+)", "{verb} {value}"),
    # Goals.
    Rule("goal", r"(?P<g>matlamat|impian|cita-cita|rancangan|target|sasaran|azam)\s+{MY}(?:ialah\s+|adalah\s+"
                 r"|:\s*)?(?:untuk\s+)?(?P<value>.+)", "{g}: {value}"),
    Rule("goal", r"(?:{I})?(?P<verb>mahu|ingin|nak|hendak|bercita-cita|bercadang"
                 r"|merancang)\s+(?:untuk\s+)?(?P<value>(?:menjadi|jadi|belajar|berpindah|pindah|membuka"
                 r"|memulakan|menulis|menamatkan|melawat|mengembara|bersara|berlari"
                 r"|lari)\b.+)", "{verb} {value}"),
    # "Saya Siti" only after a greeting ("Hai, saya Siti").
    Rule("name", rf"{ME}\s+{NAME}", "Nama: {value}", capital=True, greeting=True, name=True),
]


def prefers(order: str) -> str:
    """"mulai sekarang jawab dalam bahasa Melayu" → "Lebih suka jawapan dalam bahasa Melayu"."""
    text = re.sub(rf"\b(?:mulai\s+sekarang|sentiasa|selalu|tolong|sila|{ME})\b", " ", order,
                  flags=re.IGNORECASE)
    text = tidy(re.sub(r"\s+", " ", text))
    text = re.sub(r"^(?:jawab|balas|respons)\b", "jawapan", text, flags=re.IGNORECASE)
    return f"Lebih suka {text}" if text else ""


def about_user(text: str) -> str:
    text = tidy(text)
    text = re.sub(r"^(?:bahawa|yang)\s+", "", text, flags=re.IGNORECASE)
    text = re.sub(rf"^{ME}\s+", "", text, flags=re.IGNORECASE)
    return capitalise(text)


MALAY = Language(
    code="ms",
    script="latin",
    be=r"\b(?:ialah|adalah|ada|sedang|tengah)\b",
    subject=rf"(?:{ME}|kami|kita)\s+",
    possessive=rf"{ME}\s*",
    relations=RELATIONS,
    rules=RULES,
    lead_in=r"^(?:sebenarnya|sebetulnya|hai|helo|hello|salam|assalamualaikum|oh|ok|okey|baiklah|maaf|eh"
            r"|jadi|dan|juga|btw|update(?:\s+sikit)?|selamat\s+(?:pagi|petang|malam|tengah\s+hari))\b[\s,.:!-]*",
    clause_split=r"\s*;\s*|\s*[—–]\s*|,?\s+(?:tetapi|tapi|sebab|kerana)\s+|,?\s+dan\s+(?=(?:saya|aku)\b)"
                 r"|,\s*(?=(?:saya|aku|orang|(?:tolong\s+)?(?:ingat|jangan\s+lupa|simpan|lupakan|panggil)|tinggal|kerja|bekerja"
                 r"|suka|sekarang)\b)",
    correcting=r"^(?:sebenarnya|sebetulnya|maaf|eh|tidak|bukan)\b",
    health=r"\b(?:penyakit|sakit|kencing\s+manis|diabetes|alahan|alergi|asma|lelah|kemurungan|kebimbangan"
           r"|kanser|barah|ubat|didiagnosis|pembedahan|hamil|mengandung|tekanan\s+darah|terapi"
           r"|berat\s+badan)\b",
    money=r"\b(?:gaji|pendapatan|hutang|pinjaman|simpanan|menyimpan\s+duit|pelaburan|melabur|saham|bank"
          r"|kad\s+kredit|bajet|ringgit)\b|\bRM\s?\d|\$\d",
    app=r"\b(?:whizi|aplikasi|apl|app|chatbot|bot|pembantu|antara\s+muka|paparan|model|ciri|chatgpt|gpt"
        r"|claude)\b|jawapan\s+(?:awak|anda)",
    style=r"\b(?:jawab|menjawab|balas|membalas|respons|cakap\s+macam|gaya\s+bahasa|nada|format"
          r"|titik\s+peluru|poin|lanun|emoji)\b",
    directive=r"^(?:sentiasa|selalu|mulai\s+sekarang|jawab|balas|gunakan|jangan|awak\s+mesti|anda\s+mesti)\b",
    asked=r"^(?:pernah\s+bertanya|bertanya\s+tentang|bertanya\s+mengenai)\b",
    colours=r"merah\s+jambu|merah|oren|jingga|kuning|hijau|biru|ungu|coklat|hitam|putih|kelabu",
    not_names=r"(?:melayu|cina|india|islam|kristian|buddha|hindu|orang|penat|sihat|okey|ok|baik|sibuk"
              r"|lapar)\b",
    injection=r"\b(?:abaikan|lupakan)\b.{0,20}\b(?:arahan|peraturan|prompt)\b|\bawak\s+sekarang\s+ialah\b"
              r"|\bberlakon\s+sebagai\b|\bprompt\s+sistem\b|\bjailbreak\b|\bmod\s+pembangun\b|^\s*system\s*:",
    standing=r"\b(?:sentiasa|selalu|mulai\s+sekarang|mulai\s+hari\s+ini|setiap\s+kali"
             r"|dalam\s+semua\s+(?:perbualan|sembang)|secara\s+lalai|lebih\s+suka)\b",
    temporary=r"\b(?:(?<!mulai\s)hari\s+ini|malam\s+ini|pagi\s+ini|petang\s+ini|minggu\s+ini|semalam|esok"
              r"|tadi|buat\s+masa\s+ini|sekarang\s+ni)\b",
    joke=r"\b(?:gurau|bergurau|main-main|haha\w*|hehe\w*|cuba\s+je|cuba\s+sahaja|kali\s+ini\s+sahaja"
         r"|saja\s+je|lanun)\b",
    hypothetical=r"^(?:kalau|jika|sekiranya|andai|bayangkan|katakan)\b",
    question=r"\?\s*$|^(?:apa|apakah|siapa|di\s+mana|mana|bila|kenapa|mengapa|bagaimana|macam\s+mana|adakah"
             r"|boleh\s+tak|bolehkah)\b",
    passing=r"^(?:ini|itu|ia|awak|anda|kamu|idea\s+ini|idea\s+itu|jawapan)\b|\b(?:ini|itu)$"
            r"|\b(?:awak|anda|kamu)\b",
    scene=r"\b(?:dalam|untuk|pada)\s+(?:adegan|babak|bab)\b",
    story=r"\b(?:dalam|untuk)\s+(?:cerita|kisah|versi|alam\s+semesta|dunia|main\s+peranan"
          r"|permainan)\b.{0,40}?\bini\b|\b(?:dalam|untuk)\s+(?:cerita"
          r"|kisah)\s+alam\s+semesta\s+alternatif\b",
    corrections=[
        # "bukan biru—hijau" (docs/DESIGN.md §2.2, corrections)
        r"\bbukan\s+(?P<old>[\w-]+(?:\s[\w-]+)?)\s*(?:[,;—–-]+|\btetapi\b|\btapi\b)\s*(?:tetapi\s+|tapi\s+"
        r"|sebaliknya\s+)?(?P<new>[\w-]+(?:\s[\w-]+)?)$",
        # "Mata Mira berwarna hijau, bukan biru."
        r"(?P<new>[\w-]+)\s*,\s*bukan\s+(?P<old>[\w-]+)$",
    ],
    filler=r"saya|aku|tempat|mana|yang|itu|ini|tentang|pasal|bahawa|di|ke|dan|ialah|adalah|ya",
    memory_question=r"\bapa\s+(?:yang\s+)?(?:awak|anda|kamu|engkau|kau)\s+(?:ingat"
                    r"|tahu)\s+tentang\s+(?:saya|aku)|\bapa\s+yang\s+(?:awak|anda|kamu)\s+ingat\b"
                    r"|\bsiapa\s+nama\s+(?:saya|aku)\b|\b(?:awak|anda|kamu)\s+ingat\s+(?:saya|aku)\s+tak\b"
                    r"|\bingat\s+apa\s+tentang\s+(?:saya|aku)",
    greeting=r"^(?:hai|helo|hello|hi|salam|assalamualaikum|selamat\s+(?:pagi|petang|malam|tengah\s+hari))\b",
    thanks=r"\b(?:terima\s+kasih|tq|thanks)\b",
    standing_label="Pilihan tetap: ",
    about_user=about_user,
    trailing=r"\s+(?:ya|ye|tau|juga|lah|la|je|jer|kot)$",
    change=r"\b(?:mula|pindah|masuk|tamat|kahwin|berkahwin|dapat\s+kerja)\b",
    kidding=r"\b(?:gurau|bergurau|main-main)\b",
    when=r"\b(?:bulan|minggu|tahun)\s+(?:lepas|lalu|ni|ini)\b|\bbaru-baru\s+ini\b|(?<!mulai\s)\bsekarang\b|\bkini\b"
         r"|\b(?:dah|sudah)\s+lama\b|\b(?:dah|sudah|selama)\s+(?:\d+|satu|dua|tiga|empat|lima|enam|tujuh|lapan"
         r"|sembilan|sepuluh|beberapa)\s+(?:tahun|bulan|minggu)\b",
    ended=[rf"(?:{ME}\s+)?(?:dan|dengan)\s+(?P<who>.+?)\s+(?:dah\s+|sudah\s+|telah\s+)?(?:putus|bercerai|berpisah)\b.*",
           rf"(?:{ME}\s+)?(?:dah\s+|sudah\s+|telah\s+)?(?:putus|bercerai|berpisah)\s+dengan\s+(?P<who>.+)"],
    no_longer=r"\b(?:dah|sudah)\s+(?:tak|tidak)\b|\b(?:tidak|tak|bukan)\s+lagi\b",
    negators=r"\b(?:dah|sudah)\s+(?:tak|tidak)\b|\b(?:tidak|tak|bukan)\s+lagi\b|\blagi$",
    fillers=r"erm+|em|hmm+",
    bound=r"\b(?:kat|di|ke|dari|dan)",
    repair=r"eh,?\s*bukan|eh,?\s*silap|maksud\s+saya",
    noise=r"line\s+tak\s+clear|tak\s+clear|salah\s+dengar|eh\s+apa\s+tu|apa\s+tu|tak\s+dengar|putus-putus|bising",
    particles=r"la|lah|je|jer|kan|ni|tu|ye|ya|kot|hehe",
    polite=r"^(?:boleh\s+tak|bolehkah|boleh)\s+(?:awak|anda|kamu)?\s*",
    slots={
        "home": r"\b(?:tinggal|pindah|menetap|duduk)\b",
        "work": r"\b(?:kerja|bekerja|bertugas|jawatan)\b",
        "study": r"\b(?:belajar|sekolah|tadika|universiti|kolej|darjah|tingkatan|semester|ijazah|diploma"
                 r"|graduasi)\b",
        "age": r"\b\d+\s+tahun\b|\bberumur\b",
        "status": r"\b(?:kahwin|berkahwin|bertunang|bercerai|bujang)\b",
        "like": r"\b(?:suka|minat|benci)\b",
    },
    prefers=prefers,
    meat=r"\b(?:daging|ikan|ayam|lembu|makanan\s+laut)\b",
    vegetarian=r"\b(?:vegetarian|vegan)\b",
    named=r"\b(?:nama|bernama)\b",
    dated=r"\b(?:januari|februari|mac|april|mei|jun|julai|ogos|september|oktober|november|disember)\b|\d+/\d+",
    replies={
        "notice": "Saya model luar talian Whizi: tiada model sembang dikonfigurasi pada pelayan ini, jadi s"
                  "aya tidak "
                  "dapat menjawab soalan atau mengetahui apa-apa di luar perbualan ini.",
        "hint": "Tanya saya “apa yang awak ingat tentang saya?” untuk melihat apa yang telah disimpan oleh "
                "Whizi.",
        "greet": "Hai{name}!",
        "greet_name": " {name}",
        "nice": "Selamat berkenalan, {name}!",
        "thanks": "Sama-sama!",
        "memory": "Ini yang saya ingat tentang anda:",
        "memory_empty": "Belum ada apa-apa yang saya ingat tentang anda.",
        "request": "Ingatan Whizi dikemas kini di latar belakang selepas balasan ini, jadi saya tidak dapat "
                   "mengesahkan di sini apa yang disimpan. Anda boleh menyemaknya dalam Tetapan, di bawah "
                   "“Apa yang Whizi ingat”.",
        "forget": "Ingatan Whizi dikemas kini di latar belakang selepas balasan ini. Anda boleh menyemak at"
                  "au "
                  "mengosongkannya dalam Tetapan, di bawah “Apa yang Whizi ingat”.",
    },
)
