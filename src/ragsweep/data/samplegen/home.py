"""The home insurance wording (buildings and contents), versions 2024 and 2025."""

from __future__ import annotations

from ragsweep.data.samplegen import shared
from ragsweep.data.samplegen.spec import Ask, ClauseDef, Endorsement, PartDef, ProductDef

DEFINITIONS = PartDef(
    "2",
    "Definitions",
    "definitions",
    (
        ClauseDef(
            "def.accidental",
            "Accidental damage",
            "accidental damage",
            (
                "Accidental damage means sudden and unexpected physical damage that happens at a"
                " specific time, is caused by external means and is not caused deliberately.",
                "For example, spilling paint on a carpet or putting a foot through a ceiling"
                " while in the loft.",
                {
                    "2024": "Sudden damage caused by your pets can count as accidental damage, but"
                    " damage they cause over time does not; see clause {ref[exc.pests]}.",
                    "2025": "Damage caused by pets is never accidental damage under this policy;"
                    " see clause {ref[exc.pests]}.",
                },
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "What do you <count as|class as> <accidental damage|an accident> <in the"
                        " house|at home>?",
                    ),
                    supports=("cov.accidental",),
                ),
                Ask(
                    "definitions",
                    (
                        "Would knocking <a glass of red wine|paint> over the <carpet|sofa> count"
                        " as <an accident|=accidental damage>?",
                        "if my kid <throws|kicks> a ball through the <tv|telly> is that"
                        " <accidental|an accident> or not?",
                    ),
                    supports=("cov.accidental",),
                    facts=(0,),
                ),
                Ask(
                    "definitions",
                    (
                        "<The dog|Our puppy> <knocked|jumped at> the telly and <cracked|smashed>"
                        " it, <does that count as|is that> <accidental damage|an accident>"
                        " <now|since renewal>?",
                        "Did you change <what counts as|the meaning of> accidental damage for"
                        " <pets|dogs and cats>?",
                    ),
                    supports=("cov.accidental",),
                    also=("exc.pests",),
                    hinge="wording",
                    facts=(2,),
                ),
            ),
        ),
        ClauseDef(
            "def.buildings",
            "Buildings",
            "the buildings",
            (
                "Buildings means the home and its permanent fixtures and fittings, including"
                " fitted kitchens, bathroom suites, fitted wardrobes and floors, but not carpets.",
                "It also includes garages, sheds, greenhouses and other outbuildings, patios,"
                " terraces, drives, paths, walls, gates, fences, hedges, swimming pools and"
                " tennis courts at the address shown in the schedule.",
                {
                    "2024": "It includes solar panels and heat pumps that you own, but not those"
                    " leased from a third party.",
                    "2025": "It includes solar panels, heat pumps, battery storage and electric"
                    " vehicle charging points that you own, but not those leased from a third"
                    " party.",
                },
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "<Does my fitted kitchen|Do the kitchen units> count as part of the"
                        " <building|house> or the <contents|stuff>?",
                    ),
                    supports=("cov.buildings",),
                    facts=(0,),
                ),
                Ask(
                    "definitions",
                    (
                        "Are <solar panels|my heat pump> <part of the building|=buildings> for"
                        " insurance <purposes|>?",
                    ),
                    supports=("cov.buildings",),
                    facts=(2,),
                ),
                Ask(
                    "definitions",
                    ("Is my <garden shed|driveway|garage> part of the <buildings|house> cover?",),
                    supports=("cov.buildings",),
                    facts=(1,),
                ),
                Ask(
                    "definitions",
                    (
                        "We had a <car charger|charging point for the EV> fitted on the"
                        " <drive|front wall>, is it <part of the house|=buildings> <now|on the new"
                        " policy>?",
                        "Is my <home battery|wallbox charger> <included|counted> in the"
                        " buildings <these days|since you changed the wording>?",
                    ),
                    supports=("cov.buildings",),
                    hinge="wording",
                    facts=(2,),
                ),
            ),
        ),
        ClauseDef(
            "def.business",
            "Business equipment",
            "business equipment",
            (
                "Business equipment means computers, printers, telephones, office furniture and"
                " stock that you use for a business or profession you carry on from the home.",
                {
                    "2024": "It does not include motor vehicles, or stock held for a business that"
                    " has customers visiting the home.",
                    "2025": "It does not include motor vehicles, stock held for a business that"
                    " has customers visiting the home, or equipment your employer owns and"
                    " supplies to you, which your employer should insure.",
                },
                "Business equipment is covered only where clause {ref[cov.business]} applies.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Is my <work laptop|office printer> <treated as|counted as> <business"
                        " equipment|=business equipment> or contents?",
                        "i work from home 3 days a week, <is my desk and monitor|are my desk and"
                        " screens> <business stuff|=business equipment> or just contents?",
                    ),
                    supports=("cov.business",),
                    facts=(0, 1),
                ),
                Ask(
                    "definitions",
                    (
                        "My <company|boss> gave me <a laptop|a work laptop> to use at home, does it"
                        " still count as my business equipment <after renewal|this year>?",
                    ),
                    supports=("cov.business",),
                    hinge="wording",
                    facts=(0, 1),
                ),
            ),
        ),
        ClauseDef(
            "def.contents",
            "Contents",
            "contents",
            (
                "Contents means household goods and personal belongings that you or your family"
                " own or are legally responsible for, kept in the home.",
                "Contents include carpets, tenant's fixtures, valuables and money, subject to the"
                " limits in clauses {ref[lim.valuables]} and {ref[lim.money]}.",
                "Contents do not include motor vehicles, caravans, boats, animals, business"
                " equipment (covered only under clause {ref[cov.business]}) or any part of the"
                " buildings.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    ("What counts as <contents|my stuff|my belongings> <in the house|at home>?",),
                    supports=("cov.contents",),
                ),
                Ask(
                    "definitions",
                    (
                        "Are <carpets|rugs and carpets> <contents|=contents> or part of the"
                        " <house|=buildings>?",
                    ),
                    supports=("cov.contents",),
                    facts=(1,),
                ),
                Ask(
                    "definitions",
                    ("Does <contents|my home contents> cover include <my pets|the cat>?",),
                    supports=("cov.contents",),
                    facts=(2,),
                ),
            ),
        ),
        shared.DEF_EXCESS,
        ClauseDef(
            "def.family",
            "Family",
            "your family",
            (
                "Family means your husband, wife, civil partner or partner, your children and"
                " other relatives who live with you permanently and are not paying guests or"
                " lodgers.",
                {
                    "2024": "A full-time student under the age of 25 who lives away from the home"
                    " during term time is treated as living with you.",
                    "2025": "A full-time student of any age who lives away from the home during"
                    " term time, and returns to it in the holidays, is treated as living with"
                    " you.",
                },
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Is my <son|daughter> at <university|uni> still covered <as family|under"
                        " my policy>?",
                    ),
                    facts=(1,),
                ),
                Ask(
                    "definitions",
                    ("Does <family|=family> include my <boyfriend|partner> who lives with me?",),
                    facts=(0,),
                ),
                Ask(
                    "definitions",
                    (
                        "My daughter is <27|26> and doing a <masters|PhD> away from home, is she"
                        " still <family|covered> <now|on the new wording>?",
                        "<Is there still an|Did you drop the> age limit for students <counting as"
                        " family|living away at uni>?",
                    ),
                    hinge="wording",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "def.flood",
            "Flood",
            "flood",
            (
                "Flood means the build-up of water from outside the buildings that enters the"
                " home, including water from rivers, the sea, surface run-off and overflowing"
                " drains.",
                "It does not include water escaping from pipes or appliances, which is covered as"
                " escape of water under clause {ref[cov.buildings]}, subject to the excess in"
                " clause {ref[lim.water_excess]}.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Does water <coming up|backing up> from the drains <count as|class"
                        " as> a flood?",
                    ),
                    facts=(0,),
                ),
                Ask(
                    "definitions",
                    (
                        "What's the difference between <a flood|=flood> and <a leak|=escape of"
                        " water> for my claim?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "def.home",
            "Home",
            "the home",
            (
                "Home means the private dwelling at the address shown in the schedule, used only"
                " for domestic purposes, together with its garages and outbuildings.",
                "It does not include any part that is let to lodgers or used for business, other"
                " than clerical work.",
            ),
            fill=1,
        ),
        ClauseDef(
            "def.money",
            "Money",
            "money",
            (
                {
                    "2024": "Money means cash, current coins and bank notes, postal and money"
                    " orders, gift vouchers, travel tickets other than season tickets, phone"
                    " cards and stamps that are not part of a collection, all held for social or"
                    " domestic purposes.",
                    "2025": "Money means cash, current coins and bank notes, postal and money"
                    " orders, gift vouchers and prepaid gift cards, travel tickets including"
                    " season tickets, and stamps that are not part of a collection, all held for"
                    " social or domestic purposes.",
                },
                "It does not include money held for a business or digital currency of any kind.",
                "The most we pay for money is set out in clause {ref[lim.money]}.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    ("Do <gift cards|gift vouchers> count as <cash|=money>?",),
                    facts=(0,),
                ),
                Ask(
                    "definitions",
                    ("Is <bitcoin|crypto> covered as <money|cash> <on my home insurance|>?",),
                    facts=(1,),
                ),
                Ask(
                    "definitions",
                    (
                        "Is my <annual season ticket|train season ticket> <classed as|counted as>"
                        " <money|cash> <now|this year>? I don't think it was <before|last year>",
                        "Has the <meaning|definition> of money changed, <does it cover|what about>"
                        " season tickets?",
                    ),
                    hinge="wording",
                    facts=(0,),
                ),
            ),
        ),
        shared.DEF_PERIOD,
        ClauseDef(
            "def.possessions",
            "Personal possessions",
            "personal possessions",
            (
                "Personal possessions means clothing, luggage, sports equipment, mobile phones,"
                " laptops, tablets, cameras and other articles that are designed to be worn or"
                " carried, belonging to you or your family.",
                "Personal possessions do not include money, pedal cycles or business equipment;"
                " pedal cycles are covered only under clause {ref[cov.cycles]}.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "What do you mean by <=personal possessions|my things I carry around|stuff"
                        " I take out with me>?",
                    ),
                    supports=("cov.possessions",),
                ),
                Ask(
                    "definitions",
                    (
                        "Is my <phone|tablet|laptop> <counted as|classed as> a personal"
                        " <possession|item> <when I'm out|outside the house>?",
                    ),
                    supports=("cov.possessions",),
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "def.storm",
            "Storm",
            "storm",
            (
                "Storm means a period of violent weather with wind speeds of at least"
                " {v[storm_wind]}, or torrential rainfall of at least 25 millimetres an hour,"
                " or snow deep enough to cause damage, or hail of such intensity that it causes"
                " damage to hard surfaces.",
                "Storm damage to gates, fences and hedges is not covered; see clause"
                " {ref[exc.fences]}.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "How windy does it have to be <for it to count as|before you call it> a"
                        " <storm|=storm>?",
                        "Does heavy rain <count as|qualify as> a storm <for a claim|>?",
                    ),
                    supports=("exc.fences",),
                    facts=(0,),
                ),
                Ask(
                    "definitions",
                    (
                        "<I thought it had to be|Didn't it use to be> {other[storm_wind]} <for a"
                        " storm|to count as a storm>, has the wind speed changed?",
                        "Gusts <hit|were> about 50 mph last night, is that <enough for|classed as>"
                        " a storm on <the new|this year's> policy?",
                    ),
                    hinge="storm_wind",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "def.subsidence",
            "Subsidence",
            "subsidence",
            (
                "Subsidence means downward movement of the ground beneath the buildings that is"
                " not caused by the weight of the buildings themselves.",
                "Heave means upward or sideways movement of that ground; landslip means"
                " downward movement of sloping ground.",
                "Settlement of new structures, and the bedding down of new work, are not"
                " subsidence.",
                "Claims for subsidence, heave or landslip carry the excess in clause"
                " {ref[lim.subsidence_excess]}.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    ("What <actually|> counts as <subsidence|my house sinking>?",),
                    supports=("lim.subsidence_excess",),
                    facts=(0, 2),
                ),
                Ask(
                    "definitions",
                    (
                        "<Cracks|Hairline cracks> in a <new extension|new build>, is that"
                        " <=subsidence|the house sinking>?",
                    ),
                    supports=("lim.subsidence_excess",),
                    facts=(2,),
                ),
            ),
        ),
        ClauseDef(
            "def.unoccupied",
            "Unoccupied",
            "unoccupied",
            (
                "Unoccupied means not lived in by you or your family for more than"
                " {v[unoccupied_days]} days in a row.",
                {
                    "2024": "To live in the home, someone must sleep there regularly; occasional"
                    " visits to check the property do not stop it being unoccupied.",
                    "2025": "To live in the home, someone must sleep there on at least two nights"
                    " a week; daytime visits to check the property do not stop it being"
                    " unoccupied.",
                },
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "How long can <the house|my house|my home> be <empty|left empty> before"
                        " you <class|treat> it as <=unoccupied|vacant>?",
                    ),
                    also=("exc.unoccupied",),
                    facts=(0,),
                ),
                Ask(
                    "definitions",
                    (
                        "If I pop round once a week to check the <house|flat>, does it still"
                        " count as <empty|=unoccupied>?",
                    ),
                    supports=("exc.unoccupied",),
                    facts=(1,),
                ),
                Ask(
                    "definitions",
                    (
                        "Did the <unoccupied|empty house> limit change? I thought it was"
                        " {other[unoccupied_days]} days",
                        "is it still {other[unoccupied_days]} days before <my house|the flat>"
                        " <counts as empty|is classed as unoccupied>?",
                        "How many days <can I leave|can we leave> the house empty <now|after"
                        " renewal>, <has it changed|is it the same as before>?",
                    ),
                    also=("exc.unoccupied",),
                    hinge="unoccupied_days",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "def.valuables",
            "Valuables",
            "valuables",
            (
                "Valuables means jewellery, watches, items of gold, silver or other precious"
                " metals, furs, pictures and other works of art, and collections of stamps, coins"
                " or medals.",
                "Valuables are part of the contents and are covered away from the home only"
                " under the personal possessions cover in clause {ref[cov.possessions]}.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Is my <watch|wedding ring> treated as <a valuable|=valuables>?",
                        "Does <my painting|artwork> <count as|come under> <valuables|=valuables>"
                        " or ordinary contents?",
                    ),
                    supports=("lim.valuables",),
                    facts=(0,),
                ),
            ),
        ),
    ),
)

COVER = PartDef(
    "3",
    "What is covered",
    "cover",
    (
        ClauseDef(
            "cov.buildings",
            "Loss of or damage to the buildings",
            "the buildings",
            (
                "We will pay for loss of or damage to the buildings caused by fire, lightning,"
                " explosion or earthquake; storm or flood; escape of water from a fixed water or"
                " heating installation; theft or attempted theft; riot, civil commotion or"
                " malicious damage; subsidence, heave or landslip; falling trees, aerials or"
                " satellite dishes; and impact by vehicles or animals.",
                "Cover for escape of water and subsidence is subject to the excesses in clauses"
                " {ref[lim.water_excess]} and {ref[lim.subsidence_excess]}.",
                "Loss or damage while the home is unoccupied is restricted; see clause"
                " {ref[exc.unoccupied]}.",
            ),
            fill=7,
            lay="the buildings cover",
            asks=(
                Ask(
                    "limits",
                    (
                        "Is a <burst pipe|leaking pipe> that <ruins|damages> the <ceiling|floor>"
                        " covered, and what do I pay <towards it|myself>?",
                        "<water pouring|Water's coming> through the <kitchen ceiling|ceiling> from"
                        " <a pipe upstairs|the bathroom>, am I covered and <how much is the"
                        " excess|what will it cost me>?",
                    ),
                    supports=("lim.water_excess", "exc.wear", "exc.unoccupied", "exc.sealant"),
                    facts=(0, 1),
                ),
            ),
        ),
        ClauseDef(
            "cov.contents",
            "Loss of or damage to contents",
            "your contents",
            (
                "We will pay for loss of or damage to contents in the home caused by any of the"
                " events listed in clause {ref[cov.buildings]}.",
                "We will also pay for contents temporarily removed to another private home, a"
                " bank or safe deposit, or a building where you are living or working, up to the"
                " limit in clause {ref[lim.contents]}.",
                "Contents in the open within the boundaries of the home are covered against theft"
                " up to £500.",
                "Theft is covered only if the conditions in clause {ref[cond.security]} have been"
                " met.",
            ),
            fill=7,
            lay="the contents section",
            asks=(
                Ask(
                    "limits",
                    (
                        "<Someone nicked|Thieves took> the <garden furniture|kids' trampoline|lawn"
                        " mower> from <the back garden|outside>, how much <do you cover|can I"
                        " get>?",
                        "Is stuff left <in the garden|outside in the garden> covered <for"
                        " theft|if it's stolen> and up to what amount?",
                    ),
                    supports=("cov.garden", "cond.security"),
                    facts=(2,),
                ),
            ),
        ),
        ClauseDef(
            "cov.accidental",
            "Accidental damage",
            "accidental damage",
            (
                "If your schedule shows that accidental damage cover applies to the buildings, we"
                " will pay for accidental damage to the buildings.",
                "Accidental damage to contents is covered only where endorsement END-HM-03 is"
                " shown in your schedule; without it, we cover accidental damage to televisions,"
                " audio and computer equipment, fixed glass and mirrors only.",
                "Damage caused by pets is dealt with in clause {ref[exc.pests]}.",
            ),
            fill=7,
            lay="the accidental damage section",
            asks=(
                Ask(
                    "limits",
                    (
                        "Am I covered if I <break my TV|knock the telly off the wall> by"
                        " accident, and how much would I pay?",
                        "<I've|We've> <cracked|smashed> the TV screen <moving it|by accident>, can"
                        " I claim <for it|> and <what's the excess|what do I pay>?",
                    ),
                    supports=("lim.standard_excess", "def.accidental", "exc.pests"),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "cov.possessions",
            "Personal possessions away from the home",
            "personal possessions",
            (
                "If your schedule shows that personal possessions cover applies, we will pay for"
                " loss of or damage to personal possessions and valuables anywhere in the world"
                " for up to 60 days in any period of insurance.",
                "The limits in clause {ref[lim.possessions]} apply.",
                "Possessions left in an unattended vehicle are covered only as set out in clause"
                " {ref[exc.vehicle]}.",
                "Loss away from the home must be reported as set out in clause {ref[clm.theft]}.",
            ),
            fill=7,
            lay="the bit about possessions away from home",
            asks=(
                Ask(
                    "limits",
                    (
                        "<Am I covered|Is my stuff covered> <on holiday in Spain|abroad> <for the"
                        " whole month|for three weeks>, and is there a <time limit|limit on days>?",
                        "how long can I be <away|travelling> and still have my <phone and"
                        " camera|things> covered <outside the UK|abroad>?",
                    ),
                    supports=("lim.possessions", "exc.vehicle"),
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "cov.money",
            "Money and credit cards",
            "money",
            (
                "We will pay for loss of money belonging to you or your family, anywhere in the"
                " world, and for loss you suffer through the unauthorised use of your credit,"
                " debit or cheque cards after they have been lost or stolen.",
                "You must tell the card issuer within 24 hours of discovering the loss, and you"
                " must have complied with its conditions.",
                "The limits in clause {ref[lim.money]} apply.",
            ),
            fill=6,
        ),
        ClauseDef(
            "cov.cycles",
            "Pedal cycles",
            "pedal cycles",
            (
                "If your schedule shows pedal cycle cover, we will pay for loss of or damage to"
                " pedal cycles and electrically assisted pedal cycles, including their"
                " accessories while fitted, anywhere in the United Kingdom.",
                "Theft of a cycle away from the home is covered only if it was locked to an"
                " immovable object or kept in a locked building; see clause {ref[exc.cycles]}.",
            ),
            fill=6,
            lay="the bike cover",
        ),
        ClauseDef(
            "cov.accommodation",
            "Alternative accommodation",
            "alternative accommodation",
            (
                "If the home cannot be lived in because of loss or damage covered by this policy,"
                " we will pay the reasonable cost of comparable alternative accommodation for you,"
                " your family and your pets until the home is fit to live in again.",
                "We will also pay for the storage of contents and for any rent you are still"
                " responsible for.",
                "The most we will pay under this clause is {v[accommodation_limit]} in any one"
                " claim, as also shown in clause {ref[lim.accommodation]}.",
            ),
            fill=6,
            lay="the alternative accommodation clause",
        ),
        ClauseDef(
            "cov.freezer",
            "Freezer contents",
            "the contents of your freezer",
            (
                "We will pay for food in a domestic freezer or fridge that is spoiled by a rise"
                " or fall in temperature, or by contamination from refrigerant fumes.",
                "We will not pay where the power supply was deliberately switched off by a"
                " supplier, or where the failure was caused by the freezer being more than ten"
                " years old.",
                "The limit for this cover is in clause {ref[lim.freezer]}.",
            ),
            fill=5,
        ),
        ClauseDef(
            "cov.garden",
            "Gardens and outbuildings",
            "your garden",
            (
                "We will pay for loss of or damage to trees, shrubs, plants and lawns in the"
                " garden caused by fire, lightning, explosion, theft, vandalism or impact by"
                " vehicles.",
                "Garden furniture, ornaments and barbecues are covered against the events in"
                " clause {ref[cov.buildings]} while in the grounds of the home.",
                "Damage by storm or flood to plants and hedges is not covered; see clause"
                " {ref[exc.fences]}.",
            ),
            fill=5,
        ),
        ClauseDef(
            "cov.business",
            "Home business equipment",
            "business equipment",
            (
                "Where endorsement END-HM-11 is shown in your schedule, we will pay for loss of or"
                " damage to business equipment in the home caused by any of the events listed in"
                " clause {ref[cov.buildings]}.",
                "The most we will pay is {v[business_limit]} in any one claim, and no more than"
                " £1,500 for any one item, as also set out in clause {ref[lim.business]}.",
                "Without this endorsement, business equipment is not covered.",
                "Business equipment away from the home is not covered under any circumstances.",
            ),
            fill=5,
            lay="the home office endorsement",
        ),
        ClauseDef(
            "cov.liability",
            "Liability to the public",
            "your legal liability",
            (
                "We will pay amounts you become legally liable to pay as compensation for"
                " accidental bodily injury to any person, or accidental damage to property, that"
                " happens during the period of insurance and arises from your occupation or"
                " ownership of the home.",
                "We will also pay legal costs we have agreed in writing, within the limits in"
                " clause {ref[lim.liability]}.",
                "We will not pay for injury to you or your family, or for liability arising from"
                " your business, motor vehicles, aircraft or animals other than cats and dogs"
                " (except dangerous breeds).",
            ),
            fill=6,
            lay="the liability section",
        ),
        ClauseDef(
            "cov.tenants",
            "Lodgers and paying guests",
            "lodgers",
            (
                "Where endorsement END-HM-21 is shown in your schedule, cover under clauses"
                " {ref[cov.buildings]} and {ref[cov.contents]} continues while you have up to two"
                " lodgers or paying guests living in the home.",
                "Theft by lodgers is covered only where there is forcible and violent entry to,"
                " or exit from, the home; see clause {ref[exc.lodgers]}.",
            ),
            fill=5,
            versions=("2024",),  # the lodgers endorsement is withdrawn from the 2025 wording
        ),
        ClauseDef(
            "cov.trace",
            "Trace and access",
            "trace and access",
            (
                "If water or heating oil escapes from a fixed water or heating installation in"
                " the home, we will pay the reasonable cost of finding where it is coming from,"
                " including removing and replacing any part of the buildings to reach it.",
                "The most we will pay under this clause is {v[trace_limit]} in any one claim.",
                "We will not pay to repair the pipe, tank or appliance itself unless the damage"
                " is covered under clause {ref[cov.buildings]}.",
                "The escape of water excess in clause {ref[lim.water_excess]} applies.",
            ),
            fill=5,
            versions=("2025",),
            lay="the trace and access cover",
            gloss="finding a hidden leak and putting the walls or floor back afterwards",
            asks=(
                Ask(
                    "limits",
                    (
                        "There's a leak <under the floor|behind the wall> but <nobody can find"
                        " it|the plumber can't find it>, do you pay <for finding it|to track it"
                        " down> and how much?",
                        "Is <trace and access|leak detection> covered <now|on the new policy>, and"
                        " <what's the limit|up to how much>?",
                    ),
                    supports=("exc.wear", "exc.sealant"),
                    hinge="wording",
                    facts=(0, 1),
                ),
            ),
        ),
    ),
)

LIMITS = PartDef(
    "4",
    "Limits and excesses",
    "limits",
    (
        ClauseDef(
            "lim.general",
            "How limits and excesses apply",
            "your property",
            (
                "The most we will pay for any one claim is the sum insured shown in your"
                " schedule, subject to the inner limits in this section.",
                "Where an excess applies, we deduct it from the amount we pay for each claim.",
                "Where a claim is made under the buildings and contents sections for the same"
                " incident, only one standard excess (clause {ref[lim.standard_excess]}) applies,"
                " but the escape of water and subsidence excesses in clauses"
                " {ref[lim.water_excess]} and {ref[lim.subsidence_excess]} are applied in full.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "A pipe burst and ruined <the kitchen and|the floor and> <our sofa|the"
                        " furniture>, do I pay <two excesses|the excess twice> for buildings and"
                        " contents?",
                        "If I claim on <both|=buildings and contents> for <the same|one> leak, how"
                        " many excesses <come off|do you take off>?",
                    ),
                    supports=("def.excess",),
                    facts=(2,),
                ),
            ),
        ),
        ClauseDef(
            "lim.buildings",
            "Buildings sum insured",
            "the buildings sum insured",
            (
                "The buildings sum insured is the amount shown in your schedule, up to a maximum"
                " of {v[buildings_max]}.",
                "The sum insured should be the full cost of rebuilding the home, including"
                " demolition, site clearance and professional fees, not its market value.",
                "Loss or damage to garden walls, gates and fences counts towards this sum insured.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "What's the <maximum|most> you'd pay to rebuild my <house|home> <if it"
                        " burned down|after a fire>?",
                        "Is there a <cap|ceiling> on the <=buildings sum insured|rebuild cover>?",
                    ),
                    supports=("cov.buildings", "lim.general"),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "<Is|Was> the <max|maximum> <rebuild|buildings> cover still"
                        " {other[buildings_max]}? <Our house|The house> would cost more than that"
                        " to rebuild",
                        "has the buildings <limit|maximum> <gone up|changed> <this year|at"
                        " renewal>, it used to be {other[buildings_max]}?",
                    ),
                    supports=("lim.general",),
                    hinge="buildings_max",
                    versions=("2025",),  # "it used to be ..." reads as a renewal
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "lim.contents",
            "Contents sum insured",
            "the contents sum insured",
            (
                "The contents sum insured is {v[contents_limit]}, or the higher amount shown in"
                " your schedule.",
                "Contents temporarily removed from the home are covered up to {v[removed_limit]}.",
                "Valuables and money within the contents are limited as set out in clauses"
                " {ref[lim.valuables]} and {ref[lim.money]}.",
                "We increase the contents sum insured by 10% for one month before and after"
                " Christmas, a wedding or a civil partnership in your family.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "What's the <most|maximum> you'll pay out for <all my stuff|everything in"
                        " the house|=contents> if it's <all destroyed|all stolen>?",
                    ),
                    supports=("cov.contents", "def.contents", "cond.security", "exc.unoccupied"),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "Does my <cover|contents limit> <go up|increase> at Christmas <with all"
                        " the presents|>?",
                    ),
                    supports=("cov.contents", "def.contents"),
                    facts=(3,),
                ),
                Ask(
                    "limits",
                    (
                        "My daughter's things are <at uni|at her student house> - what's the"
                        " <limit|most> you'll pay for them?",
                    ),
                    supports=("cov.contents", "def.contents"),
                    facts=(1,),
                ),
                Ask(
                    "limits",
                    (
                        "Did my contents <cover|limit> go up <when I renewed|this year>? It was"
                        " {other[contents_limit]} <before|last year>",
                        "is the <standard|basic> contents <limit|sum insured> still"
                        " {other[contents_limit]}?",
                    ),
                    supports=("cov.contents",),
                    hinge="contents_limit",
                    versions=("2025",),  # "it used to be ..." reads as a renewal
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "lim.valuables",
            "Valuables",
            "valuables",
            (
                "The most we will pay for valuables in any one claim is {v[valuables_total]} in"
                " total.",
                "The most we will pay for any single article of valuables, or for any pair or"
                " set, is {v[valuables_single]}, unless the article is specified in your"
                " schedule under endorsement END-HM-14.",
                "Valuables are covered away from the home only under clause"
                " {ref[cov.possessions]}.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "What's the most you'll pay out for <my engagement ring|my jewellery|an"
                        " expensive watch> if it's stolen?",
                    ),
                    supports=("def.valuables", "exc.vehicle", "cond.security", "clm.evidence"),
                    facts=(0, 1),
                ),
                Ask(
                    "limits",
                    (
                        "Is there a <cap|limit> on <one single item|any one piece> of"
                        " <jewellery|=valuables>?",
                    ),
                    supports=("def.valuables", "exc.vehicle", "cond.security", "clm.evidence"),
                    facts=(1,),
                ),
                Ask(
                    "limits",
                    ("How much <jewellery|=valuables> cover do I have <in total|altogether>?",),
                    supports=("def.valuables", "exc.vehicle", "cond.security", "clm.evidence"),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "Has the <single item|one item> limit for <jewellery|=valuables> changed? I"
                        " <thought|remember> it was {other[valuables_single]}",
                        "<My ring|Mum's necklace> is worth about £2,300, is it <covered in"
                        " full|fully covered> <now|on the renewed policy> without <listing|naming>"
                        " it?",
                    ),
                    supports=("def.valuables", "exc.vehicle"),
                    hinge="valuables_single",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "lim.money",
            "Money",
            "money",
            (
                "The most we will pay for loss of money is {v[money_limit]} in any one claim.",
                "The most we will pay for unauthorised use of credit, debit or cheque cards is"
                " £1,000 in any one claim.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "How much <cash|money> is covered if <it's stolen from the house|burglars"
                        " take it>?",
                    ),
                    supports=("cov.money", "def.money", "cond.security"),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "If someone <uses my stolen card|empties my account with my card>, how"
                        " much do you cover?",
                    ),
                    supports=("cov.money",),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "lim.possessions",
            "Personal possessions away from the home",
            "personal possessions",
            (
                "The most we will pay under clause {ref[cov.possessions]} is"
                " {v[possessions_limit]} in any one claim.",
                "The most we will pay for any one item is {v[possessions_single]}, and for money"
                " away from the home {v[money_limit]}.",
                "Mobile phones are limited to £750 each.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "<My bag got stolen|Someone nicked my bag> <on holiday|at the station>,"
                        " <how much can I claim|what's the limit>?",
                    ),
                    supports=("cov.possessions", "exc.vehicle", "clm.theft", "def.possessions"),
                    facts=(0, 1),
                ),
                Ask(
                    "limits",
                    (
                        "What's the <limit|most you pay> for <my phone|a phone> lost <outside the"
                        " house|while I'm out>?",
                    ),
                    supports=("cov.possessions", "clm.theft", "def.possessions"),
                    facts=(2,),
                ),
                Ask(
                    "limits",
                    (
                        "How much <=personal possessions cover|cover for stuff I carry around> do"
                        " I get per <item|thing>?",
                    ),
                    supports=("cov.possessions", "def.possessions"),
                    facts=(1,),
                ),
                Ask(
                    "limits",
                    (
                        "<Has the limit for stuff I take out gone up|Did the cover on things I take"
                        " out with me change>? <It was|I had> {other[possessions_limit]} <last"
                        " year|before>",
                        "Is the most you pay for <things|my stuff> away from home still"
                        " {other[possessions_limit]} <a claim|per claim>?",
                    ),
                    supports=("cov.possessions", "exc.vehicle"),
                    hinge="possessions_limit",
                    versions=("2025",),  # "it used to be ..." reads as a renewal
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "lim.cycles",
            "Pedal cycles",
            "pedal cycles",
            (
                "The most we will pay for any one pedal cycle is {v[cycle_single]}, and"
                " {v[cycle_total]} in total in any one claim.",
                "Electrically assisted pedal cycles are subject to the same limits.",
                "Theft away from the home is paid only if the cycle was locked as required by"
                " clause {ref[exc.cycles]}.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "My <bike|e-bike> was stolen from <outside work|the station>, how much"
                        " will you pay?",
                    ),
                    supports=("exc.cycles", "cov.cycles", "clm.theft"),
                ),
                Ask(
                    "limits",
                    ("What's the <limit|max> on <=pedal cycles|bikes> <per bike|for each bike>?",),
                    supports=("cov.cycles",),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "<Is the bike limit still|Has the per bike limit gone up from>"
                        " {other[cycle_single]}<?|? My new e-bike cost £950>",
                        "<Got|I've got> a new <e-bike|bike> worth about £900, <is that fully"
                        " covered|will you pay the lot> <now|since renewal>?",
                    ),
                    supports=("cov.cycles",),
                    hinge="cycle_single",
                    facts=(0, 1),
                ),
            ),
        ),
        ClauseDef(
            "lim.accommodation",
            "Alternative accommodation",
            "alternative accommodation",
            (
                "The most we will pay for alternative accommodation, storage and rent is"
                " {v[accommodation_limit]} in any one claim.",
                "This is in addition to the buildings sum insured.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "If we <can't live in the house|have to move out> after a <flood|fire>,"
                        " how much will you pay for <a hotel|somewhere to stay>?",
                        "Is there a limit on <=alternative accommodation|hotel costs> <while the"
                        " house is repaired|during repairs>?",
                    ),
                    also=("cov.accommodation",),
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "lim.freezer",
            "Freezer contents",
            "freezer contents",
            (
                "The most we will pay for spoiled food is {v[freezer_limit]} in any one claim.",
                "No excess applies to claims under clause {ref[cov.freezer]}.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "<My freezer broke|The freezer packed up> and all the food <went off|is"
                        " ruined>, how much <can I get back|will you pay>?",
                        "power cut for 2 days and <everything in the freezer|all the frozen food>"
                        " <defrosted|went off>, <what's the most I can claim|how much do you pay>?",
                    ),
                    supports=("cov.freezer",),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "Is there an excess <on|for> <=freezer contents|spoiled food> claims?",
                        "Do I <have to pay|still pay> the excess if I claim for <defrosted|spoiled>"
                        " food?",
                    ),
                    supports=("cov.freezer",),
                    also=("lim.standard_excess",),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "lim.garden",
            "Gardens",
            "your garden",
            (
                "The most we will pay for trees, shrubs, plants and lawns is {v[garden_limit]} in"
                " any one claim, and no more than £500 for any one tree, shrub or plant.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "Someone <stole|dug up> the plants from my <front garden|garden>, how"
                        " much <is covered|can I claim>?",
                    ),
                    supports=("cov.garden", "exc.fences"),
                ),
            ),
        ),
        ClauseDef(
            "lim.standard_excess",
            "Standard excess",
            "the standard excess",
            (
                "The standard excess is {v[standard_excess]} for each claim, or the higher amount"
                " shown in your schedule.",
                "If you chose a voluntary excess, it is added to the standard excess.",
                "The standard excess does not apply to claims under clauses"
                " {ref[cov.freezer]} or {ref[cov.liability]}.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "What's <the excess|my excess|the deductible> on <a normal|an ordinary>"
                        " <home|contents> claim?",
                        "How much do I <have to pay|pay> <myself|towards it> if I claim on my"
                        " house insurance?",
                    ),
                    supports=("def.excess", "lim.general", "lim.water_excess"),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "<Has my normal excess gone up|Did the standard excess change>"
                        " <since|after> I renewed? It <was|used to be> {other[standard_excess]}",
                        "is the excess <still|just> {other[standard_excess]} <for a normal claim|on"
                        " ordinary claims>?",
                    ),
                    supports=("def.excess",),
                    hinge="standard_excess",
                    versions=("2025",),  # "it used to be ..." reads as a renewal
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "Is my excess {other[standard_excess]} or {v[standard_excess]}? <I've seen"
                        " both|The letters don't match>",
                        "<Someone said|My neighbour says> the <home|house> excess is"
                        " {other[standard_excess]}, is that right for <mine|my policy>?",
                    ),
                    supports=("def.excess",),
                    hinge="standard_excess",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "lim.water_excess",
            "Escape of water excess",
            "the escape of water excess",
            (
                "For loss or damage caused by escape of water, the excess is"
                " {v[water_excess]} for each claim instead of the standard excess.",
                "This excess also applies to damage caused by water escaping from a washing"
                " machine, dishwasher, fish tank or waterbed.",
                "Water that gets in slowly through worn seals or grouting is not covered at all;"
                " see clause {ref[exc.wear]}.",
            ),
            fill=4,
            lay="the escape of water excess",
            asks=(
                Ask(
                    "limits",
                    (
                        "What's the <deductible|excess> if <a pipe bursts|the washing machine"
                        " leaks> and floods the kitchen?",
                    ),
                    supports=("cov.buildings", "exc.wear", "exc.unoccupied", "exc.sealant"),
                    facts=(0, 1),
                ),
                Ask(
                    "limits",
                    (
                        "Is the excess <higher|different> for <a leak|water damage|=escape of"
                        " water>?",
                    ),
                    supports=("cov.buildings", "exc.wear", "exc.unoccupied", "exc.sealant"),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "Is my <escape of water|leak> excess still {other[water_excess]} after"
                        " <renewal|I renewed>?",
                        "The <new|renewal> documents say something different, did the excess for"
                        " <leaks|burst pipes> go up from {other[water_excess]}?",
                    ),
                    supports=("cov.buildings", "lim.general", "exc.wear"),
                    hinge="water_excess",
                    versions=("2025",),  # "still ... after renewal" reads as a renewal
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "<Isn't|Is> the excess for <leaks|water damage> {other[water_excess]}?"
                        " <That's what I was told|I'm sure I read that somewhere>",
                        "<I thought|Pretty sure> the <escape of water|burst pipe> excess <was|is>"
                        " {other[water_excess]}, <can you check|is that right> for my policy?",
                    ),
                    supports=("cov.buildings", "lim.general", "exc.wear"),
                    hinge="water_excess",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "lim.subsidence_excess",
            "Subsidence excess",
            "the subsidence excess",
            (
                "For loss or damage caused by subsidence, heave or landslip, the excess is"
                " £1,000 for each claim.",
                "This excess applies once to all damage arising from the same ground movement.",
            ),
            fill=4,
            lay="the subsidence excess",
            asks=(
                Ask(
                    "limits",
                    (
                        "How much would I have to <pay|put in> myself if the house <is"
                        " sinking|has subsidence>?",
                        "What's the <=subsidence|ground movement> <excess|deductible>?",
                    ),
                    supports=("def.subsidence", "cov.buildings", "lim.general"),
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "lim.business",
            "Home business equipment",
            "business equipment",
            (
                "Where endorsement END-HM-11 applies, the most we will pay for business"
                " equipment is {v[business_limit]} in any one claim, and no more than £1,500 for"
                " any one item.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "How much <cover|protection> is there for my <home office|work"
                        " computer|=business equipment> <if it's stolen|>?",
                        "I run my <business|little business> from the spare room, what's the most"
                        " you'd pay if <my kit|the printer and computers> got stolen?",
                    ),
                    supports=("def.business",),
                    also=("cov.business",),
                ),
            ),
        ),
        ClauseDef(
            "lim.liability",
            "Liability limits",
            "your liability",
            (
                "The most we will pay under clause {ref[cov.liability]} is £2,000,000 for any one"
                " event, plus legal costs we have agreed.",
                "For liability to a domestic employee, the limit is £10,000,000 for any one event.",
                "No excess applies to liability claims.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "If the postman <slips on my path|trips on a broken step> and <sues|claims"
                        " against> me, <how much will you cover|what's the most you'll cover>?",
                    ),
                    supports=("cov.liability",),
                    facts=(0,),
                ),
            ),
        ),
    ),
)

EXCLUSIONS = PartDef(
    "5",
    "What is not covered",
    "exclusions",
    (
        *shared.EXCLUSIONS_FIRST,
        ClauseDef(
            "exc.wear",
            "Wear and tear and gradual deterioration",
            "wear and tear",
            (
                "We will not pay for loss or damage caused by wear and tear, gradual"
                " deterioration, rust, corrosion, rot, fungus, mould or damp.",
                "We will not pay for the cost of maintenance or normal redecoration.",
                "We will not pay for damage caused by water or rain getting in through worn"
                " seals, grouting or roof coverings.",
                "Keeping the home in good repair is a condition of this policy; see clause"
                " {ref[cond.care]}.",
            ),
            fill=4,
            code_no=6,
            lay="the wear and tear exclusion",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "<My roof|The flat roof> <has been leaking for months|slowly let water"
                        " in>, <will you pay|is that covered>?",
                    ),
                    supports=("cov.buildings",),
                    facts=(2,),
                ),
                Ask(
                    "exclusions",
                    (
                        "Is <mould|damp> on the walls covered?",
                        "Are you going to pay for <rotten|rotting> window frames?",
                    ),
                    supports=("cov.buildings",),
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "exc.unoccupied",
            "Unoccupied home",
            "an unoccupied home",
            (
                "We will not pay for loss or damage caused by theft, attempted theft, malicious"
                " damage, vandalism or escape of water if it happens after the home has been"
                " unoccupied, that is, not lived in for more than {v[unoccupied_days]} days in a"
                " row, as defined in clause {ref[def.unoccupied]}.",
                {
                    "2024": "Where endorsement END-HM-07 is shown in your schedule, the home may be"
                    " left unoccupied for up to 90 days before this exclusion applies, provided"
                    " the water supply is turned off at the mains.",
                    "2025": "Where endorsement END-HM-07 is shown in your schedule, the home may be"
                    " left unoccupied for up to 90 days before this exclusion applies, provided"
                    " the water supply is turned off at the mains and the heating is set to at"
                    " least 12 degrees between October and April.",
                },
                "You must tell us if the home will be unoccupied for longer than this.",
            ),
            fill=4,
            code_no=7,
            lay="the empty house exclusion",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "I'm going to be <working abroad|away> for <three|two> months, <am I still"
                        " covered|is the house still covered> if it's burgled?",
                        "Is the house covered if it's <sitting empty|left empty> while <I sell"
                        " it|it's on the market>?",
                        "My <mum's|late father's> house has been empty since <she went into a care"
                        " home|he died>, will a <leak|break-in> be covered?",
                    ),
                    supports=("def.unoccupied",),
                    facts=(0,),
                ),
                Ask(
                    "exclusions",
                    (
                        "We've got <the extended unoccupancy endorsement|extended unoccupancy"
                        " cover>, do I still just need to turn the water off <or is there more"
                        " now|or did that change>?",
                        "Leaving the house empty over winter, <is turning off the water"
                        " enough|what do I have to do> <to stay covered|so the cover still works>"
                        " <these days|after renewal>?",
                    ),
                    supports=("def.unoccupied",),
                    hinge="wording",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "exc.pests",
            "Insects, vermin and pets",
            "insects, vermin and pets",
            (
                "We will not pay for loss or damage caused by insects, moths, vermin, rodents,"
                " birds, foxes or squirrels.",
                {
                    "2024": "Damage caused by pets is covered only under accidental damage cover"
                    " and only for sudden damage; we will not pay for chewing, scratching,"
                    " tearing or fouling that happens over time.",
                    "2025": "We will not pay for any loss or damage caused by pets, including"
                    " chewing, scratching, tearing or fouling, whether or not accidental damage"
                    " cover applies.",
                },
            ),
            fill=4,
            code_no=8,
            lay="the pets and vermin exclusion",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "<My dog|The puppy> <chewed|ripped up> the <sofa|carpet>, can I claim?",
                        "<Does|Will> the policy cover <the cat|our cat> scratching <the"
                        " furniture|the new sofa>?",
                    ),
                    supports=("cov.accidental", "def.accidental"),
                    facts=(1,),
                ),
                Ask(
                    "exclusions",
                    (
                        "Are you going to pay for damage <mice|rats|moths> have done to <my"
                        " clothes|the loft>?",
                    ),
                    facts=(0,),
                ),
                Ask(
                    "exclusions",
                    (
                        "<Last year|Before> you covered <sudden pet damage|the dog breaking"
                        " things>, is that <still the case|still covered> <since renewal|this"
                        " year>?",
                        "Have you <stopped covering|changed the rules on> damage <by pets|from the"
                        " dog and cat>?",
                    ),
                    supports=("cov.accidental",),
                    also=("def.accidental",),
                    hinge="wording",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "exc.workmanship",
            "Faulty workmanship and design",
            "faulty workmanship",
            (
                "We will not pay for the cost of putting right faulty workmanship, defective"
                " design or the use of defective materials.",
                "We will pay for resulting damage to other parts of the buildings that is"
                " otherwise covered.",
            ),
            fill=4,
            code_no=9,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "The <builder|plumber> <did a bad job|botched the job> and now <the wall is"
                        " cracking|it's leaking>, will you pay?",
                        "Are you covering <poor|dodgy> <building work|workmanship>?",
                    ),
                    supports=("cov.buildings",),
                ),
            ),
        ),
        ClauseDef(
            "exc.fences",
            "Storm and flood damage to gates, fences and hedges",
            "gates, fences and hedges",
            (
                "We will not pay for loss or damage to gates, fences or hedges caused by storm or"
                " flood.",
                "We will not pay for storm or flood damage to plants, trees or lawns.",
            ),
            fill=4,
            code_no=11,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "The <wind|storm> blew my <fence|garden fence> down, <am I"
                        " covered|can I claim>?",
                        "<Is a fallen hedge|Are storm damaged gates> covered?",
                    ),
                    supports=("def.storm",),
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "exc.lodgers",
            "Theft by lodgers and guests",
            "theft by lodgers",
            (
                "We will not pay for theft or attempted theft by lodgers, paying guests or anyone"
                " you have allowed into the home, unless there was forcible and violent entry to"
                " or exit from the home.",
            ),
            fill=4,
            code_no=12,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "My <lodger|flatmate> <took|stole> <my laptop|things> and <moved out|left>,"
                        " can I claim?",
                    ),
                    also=("cov.tenants",),
                ),
                Ask(
                    "exclusions",
                    ("Is theft by a <cleaner|guest> I let in covered?",),
                    supports=("cov.tenants",),  # it names lodgers and paying guests, not cleaners
                ),
            ),
        ),
        ClauseDef(
            "exc.vehicle",
            "Possessions left in vehicles",
            "possessions left in vehicles",
            (
                "We will not pay for theft of personal possessions or valuables from an"
                " unattended vehicle unless they were hidden in a locked boot or glovebox, all"
                " doors, windows and sunroofs were locked, and there was visible forced entry.",
                "We will never pay for valuables or money left in an unattended vehicle.",
            ),
            fill=4,
            code_no=14,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "<Someone broke into my car|Thieves broke into my car> and took <my"
                        " laptop|my shopping>, is it covered on my home policy?",
                    ),
                    supports=("cov.possessions", "lim.possessions"),
                    facts=(0,),
                ),
                Ask(
                    "exclusions",
                    (
                        "I left my <handbag|watch> on the back seat <and it was taken|and it got"
                        " nicked>, can I claim?",
                    ),
                    supports=("cov.possessions", "lim.possessions"),
                ),
            ),
        ),
        ClauseDef(
            "exc.cycles",
            "Unlocked pedal cycles",
            "unlocked pedal cycles",
            (
                "We will not pay for theft of a pedal cycle away from the home unless it was"
                " locked to an immovable object or kept in a locked building.",
                "We will not pay for damage to tyres, or for cycles used for racing or pacemaking.",
            ),
            fill=4,
            code_no=15,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "My bike <got stolen|was nicked> <outside the shop|outside a cafe> but I"
                        " hadn't locked it, can I claim?",
                    ),
                    supports=("lim.cycles",),
                    also=("cov.cycles",),
                    facts=(0,),
                ),
                Ask(
                    "exclusions",
                    ("Is <a racing bike|my road bike> covered when I'm in a race?",),
                    supports=("cov.cycles",),
                    facts=(1,),
                ),
            ),
        ),
        shared.EXCLUSION_CYBER,
        ClauseDef(
            "exc.sealant",
            "Failed sealant and grout",
            "failed sealant",
            (
                "We will not pay for loss or damage caused by water escaping through failed or"
                " worn sealant or grout around baths, showers, sinks and tiled areas, or for the"
                " cost of replacing the sealant or grout.",
                "We will pay for sudden damage caused by a burst pipe behind tiling, subject to"
                " the escape of water excess in clause {ref[lim.water_excess]}.",
            ),
            fill=4,
            code_no=18,
            versions=("2025",),
            asks=(
                Ask(
                    "exclusions",
                    (
                        "Water <leaked|seeped> round the <shower tray|bath> and <ruined|damaged>"
                        " the ceiling below, is that covered?",
                        "<Are you going to|Will you> pay if the <grout|silicone> around the shower"
                        " failed?",
                    ),
                    supports=("lim.water_excess",),
                    facts=(0,),
                ),
            ),
        ),
    ),
)

CLAIMS = PartDef(
    "6",
    "Making a claim",
    "claims",
    (
        ClauseDef(
            "clm.notify",
            "Telling us about a claim",
            "your claim",
            (
                "Please tell us as soon as possible about any incident that may lead to a claim,"
                " and in any case within {v[notify_days]} days.",
                {
                    "2024": "You can tell us by telephone on the claims number in your schedule.",
                    "2025": "You can tell us by telephone on the claims number in your schedule or"
                    " through the online claims service, which is open 24 hours a day.",
                },
                "Please give us your policy number, a description of what happened and an"
                " estimate of the cost.",
            ),
            fill=5,
            lay="the section on telling you about a claim",
            asks=(
                Ask(
                    "procedures",
                    (
                        "How long have I got to <report|tell you about> a <claim|break-in> <on my"
                        " house insurance|>?",
                    ),
                    supports=("clm.theft",),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    ("Can I <make a claim|claim> <online|on the website> <instead of phoning|>?",),
                    versions=("2024",),
                    facts=(1,),
                ),
                Ask(
                    "procedures",
                    (
                        "Can I <make a claim|claim> <online|on the website> <instead of phoning|>"
                        " <now|these days>?",
                        "is there a way to <report a claim|claim> <at night|out of hours> <without"
                        " ringing|other than phoning>?",
                    ),
                    versions=("2025",),
                    hinge="wording",
                    facts=(1,),
                ),
                Ask(
                    "procedures",
                    (
                        "<What's the first thing I should do|What do I do first> when something"
                        " gets damaged at home?",
                    ),
                    supports=("clm.emergency",),
                ),
                Ask(
                    "procedures",
                    (
                        "<Do I still have|Have I still got> {other[notify_days]} days to"
                        " <report|tell you about> a claim, or has that changed?",
                        "<The leak was|It happened> 25 days ago, is it too late to <claim|report"
                        " it> <under the new rules|now>?",
                    ),
                    hinge="notify_days",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "clm.theft",
            "Theft, vandalism and lost property",
            "theft or malicious damage",
            (
                {
                    "2024": "If property is stolen or maliciously damaged, you must tell the"
                    " police within 24 hours of discovering it and obtain a crime reference"
                    " number.",
                    "2025": "If property is stolen or maliciously damaged, you must tell the"
                    " police within 48 hours of discovering it, in person, by calling 101 or"
                    " through the police force's online reporting service, and obtain a crime"
                    " reference number.",
                },
                "If property is lost away from the home, you must report it to the police or the"
                " local lost property office within 48 hours and keep their reference.",
                "We will not deal with a theft claim until you give us the crime reference number.",
                "This is in addition to telling us about the claim as set out in clause"
                " {ref[clm.notify]}.",
            ),
            fill=5,
            lay="the theft reporting section",
            asks=(
                Ask(
                    "procedures",
                    (
                        "We've been burgled, <do I need|do I have> to call the police before <I"
                        " claim|claiming>?",
                    ),
                    supports=("clm.notify",),
                    facts=(0, 2),
                ),
                Ask(
                    "procedures",
                    ("How quickly do I have to report <a theft|a stolen bike> to the police?",),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    (
                        "I lost my <phone|bag> on the bus, what do I need to do <before claiming|to"
                        " claim>?",
                    ),
                    supports=("clm.notify", "cov.possessions"),
                    facts=(1,),
                ),
                Ask(
                    "procedures",
                    (
                        "Can I <report the burglary|tell the police> online <or do I have to|or"
                        " must I> go <to the station|in person>, and <how long do I have|by when>?",
                        "<I only noticed|We found out> the shed was broken into <yesterday|a day"
                        " and a half ago>, is it too late to call the police <for the claim|>?",
                    ),
                    hinge="wording",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "clm.evidence",
            "Evidence we may ask for",
            "evidence",
            (
                "We may ask you for receipts, valuations, photographs, instruction booklets, bank"
                " statements or other evidence of ownership and value.",
                {
                    "2024": "For valuables worth more than £2,000, we may ask for a valuation that"
                    " is no more than three years old.",
                    "2025": "For valuables worth more than £2,000, we may ask for a valuation that"
                    " is no more than five years old, or for photographs of you wearing or using"
                    " the item.",
                },
                "Items above the single article limit in clause {ref[lim.valuables]} must be"
                " specified in your schedule.",
                {
                    "2024": "For damage, please keep the damaged items and take photographs before"
                    " anything is repaired or thrown away.",
                    "2025": "For damage, please keep the damaged items, take photographs and"
                    " upload them through the online claims service before anything is repaired"
                    " or thrown away.",
                },
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "I don't have <the receipt|receipts> for <the stolen stuff|my watch>, can"
                        " I still claim?",
                    ),
                    supports=("lim.valuables",),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    ("What <proof|evidence> do you need for <jewellery|an expensive ring>?",),
                    supports=("lim.valuables",),
                    facts=(0, 1),
                ),
                Ask(
                    "procedures",
                    (
                        "My <ring|watch> valuation is <four|4> years old, <is it still"
                        " good|will you accept it> <for a claim|now>?",
                        "How <recent|up to date> does a jewellery valuation have to be <these"
                        " days|after renewal>?",
                    ),
                    supports=("lim.valuables",),
                    hinge="wording",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "clm.emergency",
            "Emergency repairs",
            "emergency repairs",
            (
                "You may carry out emergency repairs to prevent further damage, such as"
                " boarding up a window or stopping a leak, without asking us first.",
                "We will pay up to {v[emergency_limit]} for emergency repairs without our"
                " agreement; anything more must be agreed with us before the work starts.",
                {
                    "2024": "Please keep the invoice and any damaged parts for us to see.",
                    "2025": "Please call our 24-hour emergency helpline, shown in your schedule,"
                    " before you instruct a tradesperson if you can, and keep the invoice and any"
                    " damaged parts for us to see.",
                },
                "Emergency repairs are paid only for damage covered under clause"
                " {ref[cov.buildings]}.",
            ),
            fill=5,
            lay="the emergency repairs section",
            asks=(
                Ask(
                    "procedures",
                    (
                        "Can I get <a plumber|someone> in <straight away|right now> to fix <the"
                        " leak|a burst pipe> before I <call you|speak to you>?",
                    ),
                    supports=("lim.water_excess",),
                    facts=(0, 2),
                ),
                Ask(
                    "procedures",
                    (
                        "How much can I spend on <urgent|emergency> repairs without <asking"
                        " you|your approval>?",
                    ),
                    facts=(1,),
                ),
                Ask(
                    "procedures",
                    (
                        "<Is it still|Can I still spend> {other[emergency_limit]} on <an emergency"
                        " plumber|emergency repairs> without <ringing|checking with> you first?",
                        "Has the <amount|limit> for <emergency|urgent> repairs <changed|gone"
                        " up> <this year|at renewal>?",
                    ),
                    hinge="emergency_limit",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "clm.settlement",
            "How we settle claims",
            "claim settlement",
            (
                "We may settle a claim by repairing, reinstating or replacing the property, or by"
                " paying you cash.",
                {
                    "2024": "For contents we replace as new, except for clothing and household"
                    " linen, where we deduct an amount for wear and tear.",
                    "2025": "For contents we replace as new, except for clothing, household linen"
                    " and mobile phones more than two years old, where we deduct an amount for"
                    " wear and tear.",
                },
                "If we could replace an item through one of our suppliers but you ask for cash,"
                " we will pay you what it would have cost us, which may be less than the retail"
                " price.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    ("Will you <give me cash|pay me money> or just replace <the item|my stuff>?",),
                    facts=(0, 2),
                ),
                Ask(
                    "procedures",
                    (
                        "Do you <knock money off|deduct> for <wear and tear|age> on <old"
                        " clothes|clothing>?",
                        "My phone is <3 years old|nearly three> and got <smashed|broken>, do I get"
                        " a new one or do you <knock something off|take off for age>?",
                    ),
                    supports=("lim.possessions",),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "clm.adjusters",
            "Loss adjusters and inspections",
            "an inspection",
            (
                "For larger or complex claims we may send a loss adjuster to your home to"
                " inspect the damage and agree the claim with you.",
                {
                    "2024": "The loss adjuster works for us, but you can appoint your own loss"
                    " assessor at your own expense.",
                    "2025": "For smaller claims we may instead inspect the damage by video call"
                    " at a time that suits you. The loss adjuster works for us, but you can"
                    " appoint your own loss assessor at your own expense.",
                },
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "Why is a <loss adjuster|bloke from the insurance> coming to <my"
                        " house|see the damage>?",
                    ),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    ("Do I have to <pay for|cover the cost of> my own loss assessor?",),
                    facts=(1,),
                ),
                Ask(
                    "procedures",
                    (
                        "Can <someone|the assessor> look at the damage <over a video call|on"
                        " facetime> instead of <coming round|visiting>?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "clm.sets",
            "Pairs and sets",
            "pairs and sets",
            (
                "Where an item forms part of a pair or set, we will pay only for the value of the"
                " part that is lost or damaged.",
                "We will not pay for undamaged items that form part of a suite or that match the"
                " damaged item, such as the other carpets in the same room.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "If one <earring|cushion> out of a pair is lost, do you pay for <both|the"
                        " set>?",
                    ),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    (
                        "My <bathroom suite|kitchen> is damaged in one place, will you replace"
                        " <all of it|everything so it matches>?",
                    ),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "clm.payment",
            "Paying your claim",
            "payment",
            (
                "Once we have agreed your claim, we will pay you within {v[payment_days]} working"
                " days.",
                "Where a mortgage lender has an interest in the buildings, we may pay the lender"
                " or pay you and the lender jointly.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "How long <after you agree|after agreeing> my claim do I get <the"
                        " money|paid>?",
                    ),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    ("Will the <payment|money> go to my <mortgage lender|bank> or to me?",),
                    facts=(1,),
                ),
                Ask(
                    "procedures",
                    (
                        "<Is it still|Do you still take> {other[payment_days]} working days to"
                        " pay <once|after> the claim is agreed?",
                        "Claim was agreed <a week ago|last Monday>, <when will|how soon does> the"
                        " money <arrive|come through> <now|on the new terms>?",
                    ),
                    hinge="payment_days",
                    facts=(0,),
                ),
            ),
        ),
    ),
)

CONDITIONS = PartDef(
    "7",
    "General conditions",
    "conditions",
    (
        *shared.CONDITIONS,
        ClauseDef(
            "cond.security",
            "Security and alarms",
            "security",
            (
                "You must close and lock all doors and windows, and set any burglar alarm shown"
                " in your schedule, whenever the home is left empty, even for a short time.",
                {
                    "2024": "If a key is lost or stolen, you must change the lock as soon as"
                    " possible.",
                    "2025": "If a key is lost or stolen, you must change the lock within 7 days,"
                    " and we will pay up to £500 towards the cost.",
                },
                "We will not pay for theft where entry was made without force through a door or"
                " window that was left unlocked or open.",
                "If the home is left empty for a long time, clause {ref[exc.unoccupied]} also"
                " applies.",
            ),
            fill=3,
            asks=(
                Ask(
                    "procedures",
                    (
                        "<We forgot to|I didn't> <set the alarm|lock the back door> and got"
                        " burgled, will you still pay?",
                    ),
                    supports=("cov.contents",),
                    facts=(0, 2),
                ),
                Ask(
                    "procedures",
                    ("What do I need to do if I lose my <house keys|front door key>?",),
                    facts=(1,),
                ),
                Ask(
                    "procedures",
                    (
                        "Lost my <keys|house keys> <on a night out|at the weekend>, how long have I"
                        " got to <change the locks|get a locksmith>, and do you pay for it?",
                    ),
                    hinge="wording",
                    facts=(1,),
                ),
            ),
        ),
    ),
)

ABOUT = PartDef("1", "About this policy", "other", shared.ABOUT)

HOME = ProductDef(
    document="home",
    code="HM",
    title="Home Insurance Policy Wording",
    prod="home insurance policy",
    asset="your home",
    forms={"2024": "HM-PW-2024/01", "2025": "HM-PW-2025/01"},
    starts={"2024": "1 January 2024", "2025": "1 January 2025"},
    lay_names=("my home insurance", "my house insurance", "my home policy", "my contents cover"),
    values={
        "prev_form": ("HM-PW-2023/02", "HM-PW-2024/01"),
        "asset_lay": "my house",
        "war_note": "This exclusion applies to the buildings, contents and all other sections.",
        "period_note": "A period of insurance is normally twelve months and renews each year.",
        "care_example": "This includes keeping gutters and drains clear and protecting pipes"
        " from freezing.",
        "change_examples": "building work, letting part of the home, running a business from"
        " the home, or the home being left empty for longer than the period in clause"
        " {ref[exc.unoccupied]}",
        "change_lay": "<I'm having|we're getting> an extension built",
        "contents_limit": ("£60,000", "£75,000"),
        "removed_limit": ("£5,000", "£7,500"),
        "valuables_total": ("£10,000", "£12,500"),
        "valuables_single": ("£2,000", "£2,500"),
        "money_limit": ("£500", "£750"),
        "possessions_limit": ("£2,500", "£3,000"),
        "possessions_single": ("£1,000", "£1,500"),
        "cycle_single": ("£750", "£1,000"),
        "cycle_total": ("£2,000", "£2,500"),
        "accommodation_limit": ("£25,000", "£30,000"),
        "freezer_limit": ("£500", "£750"),
        "garden_limit": ("£1,000", "£1,500"),
        "standard_excess": ("£100", "£150"),
        "water_excess": ("£350", "£500"),
        "business_limit": ("£5,000", "£7,500"),
        "emergency_limit": ("£500", "£750"),
        "buildings_max": ("£750,000", "£1,000,000"),
        "storm_wind": ("48 knots (55 miles per hour)", "41 knots (47 miles per hour)"),
        "unoccupied_days": ("60", "45"),
        "notify_days": ("30", "21"),
        "payment_days": ("ten", "five"),
        "trace_limit": ("£2,500", "£5,000"),  # cov.trace exists only in 2025
    },
    endorsements=(
        Endorsement("END-HM-03", "Accidental damage to contents", "cov.accidental"),
        Endorsement("END-HM-07", "Extended unoccupancy", "exc.unoccupied"),
        Endorsement("END-HM-11", "Home business equipment", "cov.business", ("lim.business",)),
        Endorsement("END-HM-14", "Specified valuables", "lim.valuables"),
        Endorsement("END-HM-21", "Lodgers and paying guests", "cov.tenants"),
    ),
    parts=(ABOUT, DEFINITIONS, COVER, LIMITS, EXCLUSIONS, CLAIMS, CONDITIONS),
)
